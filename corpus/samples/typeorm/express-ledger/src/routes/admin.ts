import { Router } from "express";
import { AppDataSource } from "../data-source";
import { Account } from "../entities/Account";

export const adminRouter = Router();

/** The service comes from the request's container by name and is bound to the transaction. */
adminRouter.post("/admin/accounts/:id/freeze", async (req: any, res) => {
  const freezeService = req.scope.resolve("freezeService");
  await AppDataSource.transaction(async (manager) => {
    await manager.findOneByOrFail(Account, { id: req.params.id });
    await freezeService.withTransaction(manager).freeze(req.params.id);
  });
  res.sendStatus(204);
});

/** A service registered by another package: txscan cannot tell what it runs. */
adminRouter.post("/admin/accounts/:id/report", async (req: any, res) => {
  const reporting = req.scope.resolve("reportingService");
  await AppDataSource.transaction(async (manager) => {
    await manager.findOneByOrFail(Account, { id: req.params.id });
    await reporting.withTransaction(manager).snapshot(req.params.id);
  });
  res.sendStatus(204);
});
