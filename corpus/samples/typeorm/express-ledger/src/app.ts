import express from "express";
import { AppDataSource } from "./data-source";
import { accountsRouter } from "./routes/accounts";
import { transfersRouter } from "./routes/transfers";

const app = express();
app.use(express.json());
app.use(accountsRouter);
app.use(transfersRouter);

AppDataSource.initialize().then(() => app.listen(8080));
