"""The REST API (Django REST framework): serializers write the models named in their Meta."""
from django.db import transaction
from rest_framework import generics, serializers

from .models import Product, ReturnRequest, StockLevel


class ReturnRequestSerializer(serializers.ModelSerializer):
    class Meta:
        model = ReturnRequest
        fields = ["order", "reason"]


class StockLevelSerializer(serializers.ModelSerializer):
    class Meta:
        model = StockLevel
        fields = ["product", "warehouse", "quantity"]

    def update(self, instance, validated_data):
        instance.quantity = validated_data["quantity"]
        instance.save(update_fields=["quantity"])
        return instance


class ReturnRequestCreate(generics.CreateAPIView):
    serializer_class = ReturnRequestSerializer

    @transaction.atomic
    def perform_create(self, serializer):
        serializer.save(status="requested")


class StockLevelUpdate(generics.UpdateAPIView):
    serializer_class = StockLevelSerializer

    @transaction.atomic
    def update(self, request, *args, **kwargs):
        return super().update(request, *args, **kwargs)


@transaction.atomic
def replace_picture(product_id, upload):
    product = Product.objects.select_for_update().get(pk=product_id)
    product.image.delete(save=False)
    product.image.save(upload.name, upload)
