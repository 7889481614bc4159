import { Account } from "../entities/Account";
import { AuditEvent } from "../entities/AuditEvent";
import { BaseService } from "./base-service";

export class FreezeService extends BaseService {
  async freeze(accountId: string): Promise<void> {
    await this.activeManager.update(Account, { id: accountId }, { closed: true });
    await this.activeManager.insert(AuditEvent, { actor: "admin", action: "freeze", payload: { accountId } });
  }
}
