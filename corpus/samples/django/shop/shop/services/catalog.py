"""Catalog maintenance."""
from django.db import transaction

from shop.models import Category, Product


def _deactivate_subtree(category):
    Product.objects.filter(category=category).update(is_active=False)
    for child in category.children.all():
        Category.objects.filter(pk=child.pk).update(is_active=False)
        _deactivate_subtree(child)


@transaction.atomic
def deactivate_category(category_id):
    """Hide a category, every category below it and all their products."""
    root = Category.objects.get(id=category_id)
    Category.objects.filter(pk=category_id).update(is_active=False)
    _deactivate_subtree(root)
