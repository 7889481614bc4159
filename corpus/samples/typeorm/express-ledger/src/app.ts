import express from "express";
import { AppDataSource } from "./data-source";
import { accountsRouter } from "./routes/accounts";
import { transfersRouter } from "./routes/transfers";
import { adminRouter } from "./routes/admin";
import { container } from "./container";

const app = express();
app.use(express.json());
app.use(accountsRouter);
app.use(transfersRouter);
app.use((req: any, _res, next) => {
  req.scope = container.createScope();
  next();
});
app.use(adminRouter);

AppDataSource.initialize().then(() => app.listen(8080));
