"""Models defined by Django and common third-party apps, as data: an application that imports
one (or points a foreign key at it) issues statements on it, so it is an entity with its
keys. Auto-created many-to-many `through` tables are entities too.

Adding a model is a row here: qualified name -> table, primary key, unique sets, fields.
"""

from __future__ import annotations

from .models import Entity

# qualified name -> (table, unique sets, fields)
LIBRARY_MODELS: dict[str, tuple[str, list[list[str]], list[str]]] = {
    "django.contrib.contenttypes.models.ContentType": (
        "django_content_type", [["app_label", "model"]], ["app_label", "model"]),
    "django.contrib.auth.models.Permission": (
        "auth_permission", [["codename", "content_type"]], ["codename", "content_type", "name"]),
    "django.contrib.auth.models.Group": ("auth_group", [["name"]], ["name"]),
    "django.contrib.sessions.models.Session": ("django_session", [], ["expire_date", "session_data"]),
    "django.contrib.sites.models.Site": ("django_site", [["domain"]], ["domain", "name"]),
    "django.contrib.admin.models.LogEntry": (
        "django_admin_log", [], ["action_flag", "action_time", "change_message", "content_type", "object_id",
                                 "object_repr", "user"]),
    "auditlog.models.LogEntry": (
        "auditlog_logentry", [], ["action", "actor", "changes", "content_type", "object_id", "object_pk",
                                  "timestamp"]),
    "django_celery_beat.models.PeriodicTask": (
        "django_celery_beat_periodictask", [["name"]], ["args", "enabled", "kwargs", "name", "task"]),
    "django_celery_beat.models.CrontabSchedule": ("django_celery_beat_crontabschedule", [], ["hour", "minute"]),
    "django_celery_beat.models.IntervalSchedule": ("django_celery_beat_intervalschedule", [], ["every", "period"]),
    "oauth2_provider.models.Application": (
        "oauth2_provider_application", [["client_id"]], ["client_id", "client_secret", "name", "user"]),
    "oauth2_provider.models.AccessToken": (
        "oauth2_provider_accesstoken", [["token"]], ["application", "expires", "token", "user"]),
    "oauth2_provider.models.RefreshToken": (
        "oauth2_provider_refreshtoken", [["token"]], ["access_token", "application", "token", "user"]),
    "taggit.models.Tag": ("taggit_tag", [["name"], ["slug"]], ["name", "slug"]),
    "taggit.models.TaggedItem": ("taggit_taggeditem", [], ["content_type", "object_id", "tag"]),
    "guardian.models.UserObjectPermission": (
        "guardian_userobjectpermission", [["user", "permission", "object_pk"]],
        ["content_type", "object_pk", "permission", "user"]),
    "guardian.models.GroupObjectPermission": (
        "guardian_groupobjectpermission", [["group", "permission", "object_pk"]],
        ["content_type", "group", "object_pk", "permission"]),
}


def library_entity(qualname: str) -> Entity | None:
    row = LIBRARY_MODELS.get(qualname)
    if row is None:
        return None
    table, unique, fields = row
    package = qualname.split(".models.")[0]
    return Entity(name=qualname.rsplit(".", 1)[-1], qualname=qualname, table=table, file=f"<{package}>", line=0,
                  pk=["id"], unique=unique, fields=sorted({"id", *fields}), relations=[], abstract=False,
                  managers=["objects"])


def referenced_library_entities(index, taken: set[str]) -> list[Entity]:
    """The catalog's models the application imports, under their class name unless the
    application has a model of that name (then under the qualified name)."""
    found: dict[str, Entity] = {}
    for info in index.modules.values():
        for target in info.imports.values():
            entity = library_entity(target) if target in LIBRARY_MODELS else None
            if entity is not None and target not in found:
                if entity.name in taken:
                    entity.name = entity.qualname
                found[target] = entity
    return [found[k] for k in sorted(found)]


def through_entities(entities: list[Entity]) -> list[Entity]:
    """`Post.tags` for a ManyToManyField without an explicit `through`: the auto-created table
    with a foreign key to each side, unique on the pair."""
    out = []
    known = {e.name for e in entities}
    for entity in entities:
        if entity.abstract:
            continue
        for relation in entity.relations:
            if relation["kind"] != "m2m" or relation.get("through"):
                continue
            name = f"{entity.name}.{relation['attribute']}"
            if name in known:
                continue
            source, target = entity.name.lower(), (relation["target"] or "target").lower()
            if source == target:
                source, target = f"from_{source}", f"to_{target}"
            out.append(Entity(
                name=name, qualname=f"{entity.qualname}.{relation['attribute']}.through",
                table=f"{entity.table}_{relation['attribute']}", file=entity.file, line=entity.line, pk=["id"],
                unique=[sorted([source, target])], fields=sorted(["id", source, target]),
                relations=[{"attribute": source, "kind": "fk", "target": entity.name, "reverse": None},
                           {"attribute": target, "kind": "fk", "target": relation["target"], "reverse": None}],
                abstract=False, managers=["objects"]))
    return out
