import { counter } from "./missing-metrics";

export function countTransfer(): void {
  counter("transfers").inc();
}
