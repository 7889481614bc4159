"""Signal receivers, connected in LedgerConfig.ready()."""
import boto3
from django.conf import settings
from django.db.models.signals import post_delete
from django.dispatch import receiver

from ledger.models import Statement

s3 = boto3.client("s3")


@receiver(post_delete, sender=Statement)
def delete_statement_file(sender, instance, **kwargs):
    """Statements are only deleted by staff in the admin; remove the rendered file with them."""
    if instance.file_key:
        s3.delete_object(Bucket=settings.STATEMENT_BUCKET, Key=instance.file_key)
