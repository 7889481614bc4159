import { asClass, createContainer } from "awilix";
import { FreezeService } from "./services";

/** Services are registered by name and resolved per request (`req.scope.resolve(name)`). */
export const container = createContainer();
container.register({ freezeService: asClass(FreezeService).scoped() });
