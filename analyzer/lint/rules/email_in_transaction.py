"""TX102 email-in-transaction."""

from __future__ import annotations

from ..effects import after_commit_fix, effect_findings, short
from ..model import Rule, RuleDoc


def check(ctx):
    yield from effect_findings(
        ctx, RULE.code, lambda step: step["category"] == "email",
        lambda step: f"e-mail sent inside a transaction (`{short(step['callee'])}`): it goes out even if the "
                     "transaction rolls back, and the transaction waits on the mail server",
        after_commit_fix)


RULE = Rule(
    code="TX102",
    name="email-in-transaction",
    summary="E-mail sent inside a database transaction",
    doc=RuleDoc(
        what="Finds e-mail sending (Django's mail functions, EmailMessage.send, SendGrid, nodemailer ...) "
             "while a database transaction is open, directly or through the application's own functions.",
        why="A sent e-mail cannot be rolled back: when the transaction fails after it, the user is told about "
            "an order, a password change or an invitation that does not exist. The transaction also keeps "
            "its locks while the mail server answers.",
        example="""\
@transaction.atomic
def invite(team_id, email):
    invitation = Invitation.objects.create(team_id=team_id, email=email)
    send_mail("Join us", invitation.link(), None, [email])""",
        use_instead="""\
@transaction.atomic
def invite(team_id, email):
    invitation = Invitation.objects.create(team_id=team_id, email=email)
    transaction.on_commit(lambda: send_mail("Join us", invitation.link(), None, [email]))""",
        example_typeorm="""\
await dataSource.transaction(async (manager) => {
  const invitation = await manager.save(Invitation, { teamId, email });
  await mailer.sendMail({ to: email, text: link(invitation) });
});""",
        use_instead_typeorm="""\
const invitation = await dataSource.transaction((manager) => manager.save(Invitation, { teamId, email }));
await mailer.sendMail({ to: email, text: link(invitation) });""",
        fix="Send after commit (`transaction.on_commit`, or after the transaction's promise resolves), or "
            "queue the message through an outbox row written inside the transaction.",
    ),
    check=check,
    fix_kinds=("on-commit",),
    tags=("interactivity", "external-call", "email"),
)
