import { NestFactory } from "@nestjs/core";
import { initializeTransactionalContext, addTransactionalDataSource } from "typeorm-transactional";
import { DataSource } from "typeorm";
import { AppModule } from "./app.module";

async function bootstrap() {
  initializeTransactionalContext();
  const app = await NestFactory.create(AppModule);
  addTransactionalDataSource(app.get(DataSource));
  await app.listen(3000);
}

void bootstrap();
