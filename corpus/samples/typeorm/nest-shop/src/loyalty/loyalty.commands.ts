import { CommandHandler, ICommandHandler } from "@nestjs/cqrs";
import { InjectRepository } from "@nestjs/typeorm";
import { Repository } from "typeorm";
import { Customer } from "@shop/customers/customer.entity";

/** Adds points to a customer's balance. */
export class AwardPoints {
  constructor(readonly customerId: string, readonly points: number) {}
}

@CommandHandler(AwardPoints)
export class AwardPointsHandler implements ICommandHandler<AwardPoints> {
  constructor(@InjectRepository(Customer) private customers: Repository<Customer>) {}

  async execute(command: AwardPoints): Promise<void> {
    await this.customers.increment({ id: command.customerId }, "loyaltyPoints", command.points);
  }
}
