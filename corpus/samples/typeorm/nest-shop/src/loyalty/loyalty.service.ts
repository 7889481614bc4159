import { Injectable } from "@nestjs/common";
import { CommandBus } from "@nestjs/cqrs";
import { Transactional } from "typeorm-transactional";
import { AwardPoints } from "./loyalty.commands";

@Injectable()
export class LoyaltyService {
  constructor(private commandBus: CommandBus) {}

  /** The command bus runs AwardPointsHandler inside this transaction. */
  @Transactional()
  async reward(customerId: string, points: number) {
    await this.commandBus.execute(new AwardPoints(customerId, points));
  }
}
