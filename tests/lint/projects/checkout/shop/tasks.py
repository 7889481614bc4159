from celery import shared_task


@shared_task
def send_receipt(order_id):
    return order_id
