"""External effects: calls that reach outside the database, by category.

Matched on qualified names (after import resolution), longest prefix first. A category
here makes a transaction strictly interactive. Logging is deliberately absent.
"""

from __future__ import annotations

import functools

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
    # django-q: async_task and its chains publish to the cluster's broker. (`django_q.tasks.schedule`
    # is not here: it inserts a Schedule row in the application's database, not a message.)
    "django_q.tasks.async_task": "queue", "django_q.tasks.async_chain": "queue",
    "django_q.tasks.async_iter": "queue",
    "urllib.request.urlopen": "http",
    # Connections to other databases and servers: outside this transaction's database.
    "psycopg2.connect": "database", "psycopg.connect": "database", "psycopg.AsyncConnection.connect": "database",
    "psycopg.Connection.connect": "database", "pymysql.connect": "database", "MySQLdb.connect": "database",
    "sqlite3.connect": "database", "pymongo.MongoClient": "database", "sqlalchemy.create_engine": "database",
    "sqlalchemy.engine.create_engine": "database", "cx_Oracle.connect": "database", "oracledb.connect": "database",
    "socket.gethostbyaddr": "http", "socket.socket": "http",
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
    # Mail libraries beyond django.core.mail.
    ("djmail.", "email"), ("anymail.", "email"), ("templated_mail.", "email"), ("post_office.mail", "email"),
    ("mailjet_rest", "email"), ("postmarker", "email"), ("sendgrid", "email"),
    # Other databases, DNS and cloud SDKs.
    ("sqlalchemy.", "database"), ("pymongo.", "database"), ("dns.resolver", "http"), ("dns.query", "http"),
    ("minio.", "storage"), ("google.cloud.storage", "storage"), ("google.cloud.pubsub", "queue"),
    ("google.cloud.tasks", "queue"), ("google.cloud.", "http"), ("googleapiclient.", "http"),
    ("azure.", "http"), ("hvac.", "http"), ("ldap3.", "http"), ("ldap.", "http"), ("paramiko.", "http"),
    ("ftplib.", "http"), ("imaplib.", "email"), ("poplib.", "email"), ("nats.", "queue"), ("zmq.", "queue"),
]
# Per-service category for boto3 clients: boto3.client("s3") is storage, "sqs" a queue.
BOTO3_SERVICES = {"s3": "storage", "sqs": "queue", "sns": "queue", "ses": "email", "sesv2": "email",
                  "kinesis": "queue", "firehose": "queue", "lambda": "http", "dynamodb": "storage",
                  "kms": "http", "secretsmanager": "http", "ssm": "http", "sts": "http", "cloudfront": "http",
                  "textract": "http", "rekognition": "http", "cognito-idp": "http"}
# Model field classes whose values live in file storage: instance.<field>.save()/.delete()/.open()
# reach the storage backend (FileField, ImageField and classes named like their subclasses).
FILE_FIELD_SUFFIXES = ("FileField", "ImageField")
# Storage objects of django.core.files.storage: any call on them is a storage effect.
STORAGE_OBJECTS = {"django.core.files.storage.default_storage", "django.core.files.storage.storages",
                   "django.core.files.storage.default_storage._wrapped"}
# Task-queue application classes -> the catalog name their instances are matched under: the
# application's own `app = Celery("proj")` is a Celery application like `celery.current_app`,
# so `app.send_task(...)` is `celery.current_app.send_task` above.
QUEUE_APPLICATIONS = {"celery.Celery": "celery.current_app", "celery.app.Celery": "celery.current_app",
                      "celery.app.base.Celery": "celery.current_app"}
# Method names that enqueue work on a task object (celery, dramatiq, huey).
QUEUE_METHODS = {"delay", "apply_async", "send_with_options", "enqueue", "schedule", "s", "si", "signature_apply"}
TASK_DECORATORS = ("shared_task", "task", "actor", "job", "periodic_task", "db_task", "db_periodic_task")
# open() modes that write.
WRITE_MODES = ("w", "a", "x", "+")
# pathlib methods that write.
PATH_WRITES = {"write_text", "write_bytes", "unlink", "mkdir", "rename", "replace", "touch", "rmdir"}
# Methods on a FieldFile / storage object that write.
STORAGE_METHODS = {"save", "delete"}


def category_for(qualname: str, extra: dict[str, str] | None = None) -> str | None:
    """The effect category of a callee; `extra` is the project's `[tool.txscan.effects]`."""
    if extra and qualname in extra:
        return extra[qualname]
    return _catalog_category(qualname)


@functools.lru_cache(maxsize=None)
def _catalog_category(qualname: str) -> str | None:
    """The built-in catalog's answer (the walk asks again for the same callees at every call)."""
    if qualname.rsplit(".", 1)[0] in STORAGE_OBJECTS:
        return "storage"
    if qualname in EXACT:
        return EXACT[qualname]
    for prefix, category in PREFIXES:
        if qualname.startswith(prefix) or qualname == prefix.rstrip("."):
            return category
    return None
