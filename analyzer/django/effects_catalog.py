"""External effects: calls that reach outside the database, by category.

Matched on qualified names (after import resolution), longest prefix first. A category
here makes a transaction strictly interactive. Logging is deliberately absent.
"""

from __future__ import annotations

# Exact qualified names.
EXACT = {
    "builtins.input": "input", "input": "input",
    "time.sleep": "sleep", "asyncio.sleep": "sleep", "gevent.sleep": "sleep",
    "django.core.mail.send_mail": "email", "django.core.mail.send_mass_mail": "email",
    "django.core.mail.mail_admins": "email", "django.core.mail.mail_managers": "email",
    "django.core.mail.EmailMessage.send": "email", "django.core.mail.EmailMultiAlternatives.send": "email",
    "django.core.mail.message.EmailMessage.send": "email",
    "django.core.mail.get_connection.send_messages": "email",
    "django.core.files.storage.default_storage.save": "storage",
    "django.core.files.storage.default_storage.delete": "storage",
    "django.core.files.storage.default_storage.open": "storage",
    "django.core.files.storage.default_storage.url": "storage",
    "django.core.files.storage.default_storage.exists": "storage",
    "os.system": "subprocess", "os.popen": "subprocess", "os.spawnl": "subprocess",
    "os.remove": "file", "os.unlink": "file", "os.rename": "file", "os.replace": "file",
    "os.makedirs": "file", "os.mkdir": "file", "os.rmdir": "file",
    "socket.gethostbyname": "http", "socket.getaddrinfo": "http", "socket.create_connection": "http",
    "django_rq.enqueue": "queue", "rq.Queue.enqueue": "queue",
    "celery.current_app.send_task": "queue",
    "urllib.request.urlopen": "http",
}
# Qualified-name prefixes (a call to anything under them).
PREFIXES = [
    ("requests.", "http"), ("httpx.", "http"), ("urllib3.", "http"), ("aiohttp.", "http"),
    ("http.client.", "http"), ("grpc.", "http"), ("zeep.", "http"), ("suds.", "http"),
    ("stripe.", "http"), ("braintree.", "http"), ("paypalrestsdk.", "http"), ("adyen.", "http"),
    ("twilio.", "http"), ("sendgrid.", "email"), ("mailchimp", "http"), ("slack_sdk.", "http"),
    ("slack.", "http"), ("google.cloud.storage", "storage"), ("azure.storage", "storage"),
    ("boto3.", "http"), ("botocore.", "http"), ("firebase_admin.", "http"), ("pusher.", "http"),
    ("django.core.cache.", "cache"), ("redis.", "cache"), ("django_redis.", "cache"),
    ("pymemcache.", "cache"), ("memcache.", "cache"),
    ("subprocess.", "subprocess"), ("shutil.", "file"),
    ("smtplib.", "email"), ("kombu.", "queue"), ("pika.", "queue"), ("kafka.", "queue"),
    ("confluent_kafka.", "queue"), ("elasticsearch", "http"), ("opensearchpy", "http"),
    ("meilisearch", "http"), ("algoliasearch", "http"), ("webpush", "http"), ("pywebpush", "http"),
    ("channels.layers.get_channel_layer", "queue"), ("asgiref.sync.async_to_sync", None),
]
# Per-service category for boto3 clients: boto3.client("s3") is storage, "sqs" a queue.
BOTO3_SERVICES = {"s3": "storage", "sqs": "queue", "sns": "queue", "ses": "email", "sesv2": "email",
                  "kinesis": "queue", "firehose": "queue", "lambda": "http", "dynamodb": "storage"}
# Method names that enqueue work on a task object (celery, dramatiq, huey).
QUEUE_METHODS = {"delay", "apply_async", "send_with_options", "enqueue", "schedule", "s", "si", "signature_apply"}
TASK_DECORATORS = ("shared_task", "task", "actor", "job", "periodic_task", "db_task", "db_periodic_task")
# open() modes that write.
WRITE_MODES = ("w", "a", "x", "+")
# pathlib methods that write.
PATH_WRITES = {"write_text", "write_bytes", "unlink", "mkdir", "rename", "replace", "touch", "rmdir"}
# Methods on a FieldFile / storage object that write.
STORAGE_METHODS = {"save", "delete"}


def category_for(qualname: str) -> str | None:
    if qualname in EXACT:
        return EXACT[qualname]
    for prefix, category in PREFIXES:
        if qualname.startswith(prefix) or qualname == prefix.rstrip("."):
            return category
    return None
