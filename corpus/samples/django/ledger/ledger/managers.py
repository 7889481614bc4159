from django.db import models


class AccountQuerySet(models.QuerySet):
    def open(self):
        return self.filter(is_frozen=False)

    def owned_by(self, user):
        return self.filter(owner=user)

    def lock_pair(self, first_id, second_id):
        """Lock two accounts in primary-key order so that concurrent transfers cannot deadlock."""
        return list(self.select_for_update().filter(pk__in=[first_id, second_id]).order_by("pk"))


class AccountManager(models.Manager):
    def get_queryset(self):
        return AccountQuerySet(self.model, using=self._db)

    def open(self):
        return self.get_queryset().open()

    def lock_pair(self, first_id, second_id):
        return self.get_queryset().lock_pair(first_id, second_id)

    def by_number(self, number):
        return self.get(number=number)
