#!/usr/bin/env node
// Writes <app>/expected.json for the TypeORM sample applications (docs/SAMPLES.md).
// Verdicts are written here by hand from docs/VERDICTS.md (CDA mode pk); line numbers are
// not: each transaction and statement names its function and a text on its line, and this
// script finds the line, so edits to the samples cannot leave stale numbers behind.
// Usage: node corpus/samples/typeorm/make-expected.js [--check]
"use strict";
const fs = require("fs");
const path = require("path");

const HERE = __dirname;

/** Line (1-based) of the first line containing `anchor`, searching from the line holding
 *  `fn` downwards (or upwards for decorators above a method). */
function locate(app, file, fn, anchor, up = false) {
  const lines = fs.readFileSync(path.join(HERE, app, file), "utf8").split("\n");
  const starts = lines.map((l, i) => (l.includes(fn) ? i : -1)).filter((i) => i >= 0);
  if (starts.length !== 1) throw new Error(`${app}/${file}: '${fn}' found ${starts.length} times`);
  for (let i = starts[0]; up ? i >= 0 : i < lines.length; i += up ? -1 : 1) {
    if (anchor instanceof RegExp ? anchor.test(lines[i]) : lines[i].includes(anchor)) return i + 1;
  }
  throw new Error(`${app}/${file}: '${anchor}' not found from '${fn}'`);
}

// tx(file, fn, anchor, function, boundary, interactivity, reasons, rw, statements, note, up)
// st(file, fn, anchor, entity, kind, inferability)
/** 1-based column where `anchor` starts on `line` (the call expression's start). */
function column(app, file, line, anchor) {
  const text = fs.readFileSync(path.join(HERE, app, file), "utf8").split("\n")[line - 1];
  return (anchor instanceof RegExp ? text.search(anchor) : text.indexOf(anchor)) + 1;
}

/** An autocommit entry of expected.json (docs/SAMPLES.md: `autocommit`, matched on file, line
 *  and column, as the Django samples list them). */
function buildAutocommit(app, t) {
  const line = locate(app, t.file, t.fn, t.at);
  return {
    file: t.file, line, column: column(app, t.file, line, t.at), function: t.function, rw_inferable: t.rw,
    statements: t.statements.map(([file, fn, at, entity, kind, inferability]) => ({
      file, line: locate(app, file, fn, at), entity, kind, inferability,
    })),
    ...(t.note ? { note: t.note } : {}),
  };
}

function build(app, spec) {
  const isAutocommit = (t) => t.boundary === "autocommit";
  const autocommit = spec.transactions.filter(isAutocommit).map((t) => buildAutocommit(app, t))
    .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column));
  const transactions = spec.transactions.filter((t) => !isAutocommit(t)).map((t) => ({
    file: t.file,
    line: locate(app, t.file, t.fn, t.at, t.up),
    function: t.function,
    boundary: t.boundary,
    interactivity: t.interactivity,
    reasons: [...t.reasons].sort(),
    rw_inferable: t.rw,
    statements: t.statements.map(([file, fn, at, entity, kind, inferability]) => ({
      file, line: locate(app, file, fn, at), entity, kind, inferability,
    })),
    ...(t.note ? { note: t.note } : {}),
  }));
  transactions.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
  const diagnostics = spec.diagnostics.map(([file, code]) => ({ file, code }));
  return { app, orm: "typeorm", transactions, autocommit, entities: spec.entities, diagnostics };
}

/** An autocommit transaction (TAXONOMY.md): one ORM call site reached outside every explicit
 *  transaction, its statement(s) only, one-shot. `at` is the text where the call starts. */
function ac(file, fn, at, fnName, [entity, kind, inferability], note) {
  const rw = inferability === "key" || inferability === "insert" ? "full" : "none";
  return {
    file, fn, at, function: fnName, boundary: "autocommit", interactivity: "one-shot", reasons: [], rw,
    statements: [[file, fn, at, entity, kind, inferability]], ...(note ? { note } : {}),
  };
}

const OS = "src/orders/orders.service.ts";
const CS = "src/catalog/catalog.service.ts";
const CU = "src/customers/customers.service.ts";
const CO = "src/coupons/coupons.service.ts";
const PS = "src/payments/payments.service.ts";
const RS = "src/reports/reports.service.ts";
const PR = "src/catalog/product.repository.ts";
const AU = "src/audit/audit.service.ts";
const CC = "src/cart/cart.controller.ts";
const CA = "src/cart/cart.service.ts";
const TC = "src/common/transactional-connection.ts";
const SH = "src/shipping/shipping.service.ts";
const SE = "src/sessions/sessions.service.ts";
const LY = "src/loyalty/loyalty.service.ts";
const LC = "src/loyalty/loyalty.commands.ts";

const NEST_SHOP = {
  transactions: [
    { file: OS, fn: "async placeOrder(", at: ".transaction(", function: "src.orders.orders.service.OrdersService.placeOrder",
      boundary: "transaction-callback", interactivity: "interactive-strict", reasons: ["http"], rw: "full",
      statements: [
        [OS, "async placeOrder(", "findOneByOrFail(Customer", "Customer", "read", "key"],
        [OS, "async placeOrder(", "manager.findOne(Product", "Product", "lock", "key"],
        [OS, "async placeOrder(", "manager.save(product)", "Product", "write", "key"],
        [OS, "async placeOrder(", "manager.save(order)", "Order", "insert", "insert"],
        [OS, "async placeOrder(", "manager.save(lines)", "OrderLine", "insert", "insert"],
      ],
      note: "the card is charged over HTTP (PaymentsClient.charge via HttpService) before commit" },
    { file: OS, fn: "async cancelOrder(", at: ".transaction(", function: "src.orders.orders.service.OrdersService.cancelOrder",
      boundary: "transaction-callback", interactivity: "interactive-nonstrict",
      reasons: ["conditional", "dependent-key", "loop-over-results", "read-modify-write"], rw: "partial",
      statements: [
        [OS, "async cancelOrder(", "manager.findOneBy(Order", "Order", "read", "key"],
        [OS, "async cancelOrder(", "manager.update(Order", "Order", "write", "key"],
        [OS, "async cancelOrder(", "manager.find(OrderLine", "OrderLine", "read", "cda-mismatch"],
        [OS, "async cancelOrder(", "manager.increment(Product", "Product", "write", "dependent"],
      ] },
    { file: OS, fn: "async markShipped(", at: ".transaction(", function: "src.orders.orders.service.OrdersService.markShipped",
      boundary: "transaction-callback", interactivity: "one-shot", reasons: [], rw: "full",
      statements: [
        [OS, "async markShipped(", "manager.update(Order", "Order", "write", "key"],
        [AU, "async record(", "m.insert(AuditLogSchema", "AuditLog", "insert", "insert"],
      ],
      note: "the audit helper receives the transaction's manager" },
    { file: OS, fn: "async expireStale(", at: ".transaction(", function: "src.orders.orders.service.OrdersService.expireStale",
      boundary: "transaction-callback", interactivity: "one-shot", reasons: [], rw: "none",
      statements: [[OS, "async expireStale(", "em.update(Order", "Order", "write", "range"]] },
    { file: OS, fn: "async recordView(", at: ".transaction(", function: "src.orders.orders.service.OrdersService.recordView",
      boundary: "transaction-callback", interactivity: "one-shot", reasons: [], rw: "full",
      statements: [[OS, "async recordView(", "em.insert(AuditLogSchema", "AuditLog", "insert", "insert"]],
      note: "this.products.increment escapes the transaction (escaped-manager) and is not one of its statements" },
    { file: OS, fn: "async confirm(", at: ".transaction(", function: "src.orders.orders.service.OrdersService.confirm",
      boundary: "transaction-callback", interactivity: "interactive-strict", reasons: ["email"], rw: "full",
      statements: [
        [OS, "async confirm(", "em.findOneOrFail(Order", "Order", "read", "key"],
        [OS, "async confirm(", "em.update(Order", "Order", "write", "key"],
      ] },
    { file: OS, fn: "async paymentState(", at: ".transaction(", function: "src.orders.orders.service.OrdersService.paymentState",
      boundary: "transaction-callback", interactivity: "interactive-nonstrict", reasons: ["dependent-key"], rw: "partial",
      statements: [
        [OS, "async paymentState(", "em.findOneByOrFail(Order", "Order", "read", "key"],
        [OS, "async paymentState(", "await order.payment", "Payment", "read", "cda-mismatch"],
      ],
      note: "lazy relation load selects payments by their order" },
    { file: OS, fn: "async removeLines(", at: ".transaction(", function: "src.orders.orders.service.OrdersService.removeLines",
      boundary: "transaction-callback", interactivity: "one-shot", reasons: [], rw: "full",
      statements: [[OS, "async removeLines(", "em.delete(OrderLine", "OrderLine", "delete", "key"]] },
    { file: OS, fn: "async purgeCustomerOrders(", at: ".transaction(", function: "src.orders.orders.service.OrdersService.purgeCustomerOrders",
      boundary: "transaction-callback", interactivity: "one-shot", reasons: [], rw: "full",
      statements: [[OS, "async purgeCustomerOrders(", "em.delete(Order", "Order", "delete", "key"]],
      note: "forEach(async ...) is reported as missing-await" },
    { file: OS, fn: "async touch(", at: ".transaction(", function: "src.orders.orders.service.OrdersService.touch",
      boundary: "transaction-callback", interactivity: "one-shot", reasons: [], rw: "full",
      statements: [[OS, "async touch(", "tx.update(Order", "Order", "write", "key"]],
      note: "the audit call without a manager writes through the global manager (escaped-manager)" },
    { file: CS, fn: "async importProducts(", at: "@Transactional(", up: true, function: "src.catalog.catalog.service.CatalogService.importProducts",
      boundary: "transactional-decorator", interactivity: "one-shot", reasons: [], rw: "none",
      statements: [[CS, "async importProducts(", "upsert(", "Product", "write", "cda-mismatch"]] },
    { file: CS, fn: "async restockBySku(", at: "@Transactional(", up: true, function: "src.catalog.catalog.service.CatalogService.restockBySku",
      boundary: "transactional-decorator", interactivity: "interactive-nonstrict", reasons: ["conditional", "dependent-key"], rw: "none",
      statements: [
        [PR, "findBySku(", "this.findOne(", "Product", "read", "cda-mismatch"],
        [CS, "async restockBySku(", "increment(", "Product", "write", "dependent"],
      ] },
    { file: CS, fn: "async searchByPrice(", at: "@Transactional(", up: true, function: "src.catalog.catalog.service.CatalogService.searchByPrice",
      boundary: "transactional-decorator", interactivity: "one-shot", reasons: [], rw: "none",
      statements: [[CS, "async searchByPrice(", "this.productRepo.find(", "Product", "read", "pattern"]] },
    { file: CS, fn: "async hideSubtree(", at: ".transaction(", function: "src.catalog.catalog.service.CatalogService.hideSubtree",
      boundary: "transaction-callback", interactivity: "interactive-nonstrict", reasons: ["dependent-key"], rw: "partial",
      statements: [
        [CS, "async hideSubtree(", "tree.findOneByOrFail(", "Category", "read", "key"],
        [CS, "async hideSubtree(", "tree.findDescendants(", "Category", "read", "unknown"],
        [CS, "async hideSubtree(", "tree.update(", "Category", "write", "dependent"],
      ] },
    { file: CS, fn: "async reserveStock(", at: ".transaction(", function: "src.catalog.catalog.service.CatalogService.reserveStock",
      boundary: "transaction-callback", interactivity: "one-shot", reasons: [], rw: "full",
      statements: [[PR, "async reserve(", "this.createQueryBuilder()", "Product", "write", "key"]],
      note: "withRepository binds the custom repository to the transaction; the statement is written in the repository" },
    { file: CS, fn: "async repriceCategory(", at: ".transaction(", function: "src.catalog.catalog.service.CatalogService.repriceCategory",
      boundary: "transaction-callback", interactivity: "one-shot", reasons: [], rw: "none",
      statements: [[CS, "async repriceCategory(", "await em", "Product", "write", "cda-mismatch"]] },
    { file: CU, fn: "async register(", at: ".transaction(", function: "src.customers.customers.service.CustomersService.register",
      boundary: "transaction-callback", interactivity: "interactive-nonstrict", reasons: ["conditional"], rw: "partial",
      statements: [
        [CU, "async register(", "em.existsBy(Customer", "Customer", "read", "cda-mismatch"],
        [CU, "async register(", "em.insert(Customer", "Customer", "insert", "insert"],
      ] },
    { file: CU, fn: "async rename(", at: ".transaction(", function: "src.customers.customers.service.CustomersService.rename",
      boundary: "transaction-callback", interactivity: "interactive-nonstrict", reasons: ["read-modify-write"], rw: "full",
      statements: [
        [CU, "async rename(", "em.findOneByOrFail(Customer", "Customer", "read", "key"],
        [CU, "async rename(", "em.save(customer)", "Customer", "write", "key"],
      ],
      note: "save() writes the row read earlier back (read-modify-write); its key is the one it was fetched by, an input" },
    { file: CU, fn: "async addLoyaltyPoints(", at: ".transaction(", function: "src.customers.customers.service.CustomersService.addLoyaltyPoints",
      boundary: "transaction-callback", interactivity: "one-shot", reasons: [], rw: "full",
      statements: [[CU, "async addLoyaltyPoints(", "em.increment(Customer", "Customer", "write", "key"]] },
    { file: CU, fn: "async merge(", at: ".transaction(", function: "src.customers.customers.service.CustomersService.merge",
      boundary: "transaction-callback", interactivity: "one-shot", reasons: [], rw: "partial",
      statements: [
        [CU, "async merge(", "em.update(Order", "Order", "write", "cda-mismatch"],
        [CU, "async merge(", "em.delete(Customer", "Customer", "delete", "key"],
      ] },
    { file: CU, fn: "async transferPoints(", at: "this.runner.run(", function: "src.customers.customers.service.CustomersService.transferPoints",
      boundary: "transaction-callback", interactivity: "interactive-nonstrict", reasons: ["read-modify-write"], rw: "full",
      statements: [
        [CU, "async transferPoints(", "{ id: fromId }", "Customer", "read", "key"],
        [CU, "async transferPoints(", "{ id: toId }", "Customer", "read", "key"],
        [CU, "async transferPoints(", "em.save([from, to])", "Customer", "write", "key"],
      ],
      note: "through the project's wrapper TransactionRunner.run" },
    { file: CU, fn: "async blockWithRetry(", at: "this.runner.run(", function: "src.customers.customers.service.CustomersService.blockWithRetry",
      boundary: "transaction-callback", interactivity: "interactive-strict", reasons: ["sleep"], rw: "full",
      statements: [[CU, "async blockWithRetry(", "em.update(Customer", "Customer", "write", "key"]],
      note: "pause() sleeps on a timer between retries, inside the transaction" },
    { file: CO, fn: "async redeem(", at: "@Transactional(", up: true, function: "src.coupons.coupons.service.CouponsService.redeem",
      boundary: "transactional-decorator", interactivity: "interactive-nonstrict", reasons: ["conditional", "read-modify-write"], rw: "full",
      statements: [
        [CO, "async redeem(", "this.coupons.findOne(", "Coupon", "lock", "key"],
        [CO, "async redeem(", "this.coupons.save(", "Coupon", "write", "key"],
        [CO, "async redeem(", "this.orders.update(", "Order", "write", "key"],
      ] },
    { file: CO, fn: "async issue(", at: "runInTransaction(", function: "src.coupons.coupons.service.CouponsService.issue",
      boundary: "transaction-callback", interactivity: "one-shot", reasons: [], rw: "full",
      statements: [[CO, "async issue(", "this.coupons.insert(", "Coupon", "insert", "insert"]] },
    { file: CO, fn: "async purgeExpired(", at: "@Transactional(", up: true, function: "src.coupons.coupons.service.CouponsService.purgeExpired",
      boundary: "transactional-decorator", interactivity: "interactive-strict", reasons: ["cache"], rw: "none",
      statements: [[CO, "async purgeExpired(", "this.coupons.delete(", "Coupon", "delete", "range"]] },
    { file: CO, fn: "async retire(", at: "@Transactional(", up: true, function: "src.coupons.coupons.service.CouponsService.retire",
      boundary: "transactional-decorator", interactivity: "interactive-strict", reasons: ["http"], rw: "full",
      statements: [
        [CO, "async retire(", "this.coupons.findOneByOrFail(", "Coupon", "read", "key"],
        [CO, "async retire(", "this.coupons.remove(", "Coupon", "delete", "key"],
      ],
      note: "the notifier is an interface: both implementations are walked (class-hierarchy analysis); the default configuration's webhook posts over HTTP. The remove runs only when the find-or-fail read found the coupon" },
    { file: PS, fn: "async recordPayment(", at: "@Transaction(", up: true, function: "src.payments.payments.service.PaymentsService.recordPayment",
      boundary: "transaction-decorator", interactivity: "one-shot", reasons: [], rw: "full",
      statements: [
        [PS, "async recordPayment(", "payments.insert(", "Payment", "insert", "insert"],
        [PS, "async recordPayment(", "manager.update(Order", "Order", "write", "key"],
      ] },
    { file: PS, fn: "async refund(", at: "@Transaction(", up: true, function: "src.payments.payments.service.PaymentsService.refund",
      boundary: "transaction-decorator", interactivity: "interactive-strict", reasons: ["http"], rw: "full",
      statements: [
        [PS, "async refund(", "manager.findOneOrFail(Payment", "Payment", "read", "key"],
        [PS, "async refund(", "manager.save(payment)", "Payment", "write", "key"],
      ] },
    { file: RS, fn: "async revenueSince(", at: ".transaction(", function: "src.reports.reports.service.ReportsService.revenueSince",
      boundary: "transaction-callback", interactivity: "one-shot", reasons: [], rw: "none",
      statements: [
        [RS, "async revenueSince(", "pg_advisory_xact_lock", null, "raw", "unknown"],
        [RS, "async revenueSince(", "SELECT SUM(total)", "Order", "raw", "range"],
      ] },
    { file: RS, fn: "async exportOrder(", at: ".transaction(", function: "src.reports.reports.service.ReportsService.exportOrder",
      boundary: "transaction-callback", interactivity: "interactive-strict", reasons: ["queue"], rw: "full",
      statements: [[RS, "async exportOrder(", "em.query(", "Order", "raw", "key"]] },
    { file: RS, fn: "async customerOrders(", at: ".transaction(", function: "src.reports.reports.service.ReportsService.customerOrders",
      boundary: "transaction-callback", interactivity: "one-shot", reasons: [], rw: "none",
      statements: [[RS, "async customerOrders(", "em.getRepository(Order).find(", "Order", "read", "cda-mismatch"]] },
    { file: RS, fn: "async stockValuation(", at: ".transaction(", function: "src.reports.reports.service.ReportsService.stockValuation",
      boundary: "transaction-callback", interactivity: "one-shot", reasons: [], rw: "none",
      statements: [[RS, "async stockValuation(", "em.find(Product)", "Product", "read", "full-scan"]] },
    { file: CC, fn: "async addLine(", at: "@Transaction(", up: true, function: "src.cart.cart.controller.CartController.addLine",
      boundary: "transaction-decorator", interactivity: "interactive-nonstrict", reasons: ["read-modify-write"], rw: "full",
      statements: [
        [CA, "async addLine(", "getRepository(ctx, Order).findOneByOrFail(", "Order", "read", "key"],
        [CA, "async addLine(", "getRepository(ctx, Product).findOneByOrFail(", "Product", "read", "key"],
        [CA, "async addLine(", "lines.insert(", "OrderLine", "insert", "insert"],
        [CA, "async addLine(", "getRepository(ctx, Order).update(", "Order", "write", "key"],
      ],
      note: "request-context transaction: the app's @Transaction() applies TransactionInterceptor, which starts it; " +
        "the service reaches it through getRepository(ctx, Entity); line values and the new total come from the reads" },
    { file: CC, fn: "async checkout(", at: "@Transaction(", up: true, function: "src.cart.cart.controller.CartController.checkout",
      boundary: "transaction-decorator", interactivity: "interactive-nonstrict", reasons: ["read-modify-write"], rw: "full",
      statements: [
        [TC, "async getEntityOrThrow<", "findOneBy(", "Order", "read", "key"],
        [CA, "async checkout(", ".save(order)", "Order", "write", "key"],
      ],
      note: "the order is loaded by the connection's helper with the entity passed as a value; " +
        "getRepository(Order) without a context runs outside the transaction (escaped-manager)" },
    { file: RS, fn: "async openOrderCount(", at: ".transaction(", function: "src.reports.reports.service.ReportsService.openOrderCount",
      boundary: "transaction-callback", interactivity: "one-shot", reasons: [], rw: "none",
      statements: [[RS, "async openOrderCount(", "this.findBy(", "Order", "read", "cda-mismatch"]] },
    { file: SH, fn: "async ship(", at: ".transaction(", function: "src.shipping.shipping.service.ShippingService.ship",
      boundary: "transaction-callback", interactivity: "interactive-strict", reasons: ["http"], rw: "full",
      statements: [
        [SH, "async ship(", "findOneByOrFail(Order", "Order", "read", "key"],
        [SH, "async ship(", "em.insert(Shipment", "Shipment", "insert", "insert"],
        [SH, "async ship(", "em.update(Order", "Order", "write", "key"],
      ],
      note: "the carrier is injected by token (@Inject(CARRIER), bound with useClass in AppModule) and books over HTTP" },
    { file: SH, fn: "async relabel(", at: ".transaction(", function: "src.shipping.shipping.service.ShippingService.relabel",
      boundary: "transaction-callback", interactivity: "one-shot", reasons: [], rw: "full",
      statements: [
        [SH, "async relabel(", "em.findOneBy(Shipment", "Shipment", "read", "key"],
        [SH, "async relabel(", "em.update(Shipment", "Shipment", "write", "key"],
      ],
      note: "a timeout raced against a read is not a sleep; both key columns make a key lookup" },
    { file: SH, fn: "async cancelShipments(", at: ".transaction(", function: "src.shipping.shipping.service.ShippingService.cancelShipments",
      boundary: "transaction-callback", interactivity: "one-shot", reasons: [], rw: "none",
      statements: [[SH, "async cancelShipments(", "em.delete(Shipment", "Shipment", "delete", "cda-mismatch"]],
      note: "one of the two key columns is not a key lookup" },
    { file: SE, fn: "async signIn(", at: ".transaction(", function: "src.sessions.sessions.service.SessionsService.signIn",
      boundary: "transaction-callback", interactivity: "interactive-strict", reasons: ["cache"], rw: "full",
      statements: [
        [SE, "async signIn(", "findOneByOrFail(Customer", "Customer", "read", "key"],
        [SE, "async signIn(", "em.save(em.create(Session", "Session", "insert", "insert"],
      ],
      note: "the session cache is an interface: the default keeps it in memory, the shared option in Redis; the possible Redis write makes it strict, reported at the dispatch call (this.options.cache.put)" },
    { file: SE, fn: "async revoke(", at: ".transaction(", function: "src.sessions.sessions.service.SessionsService.revoke",
      boundary: "transaction-callback", interactivity: "interactive-nonstrict", reasons: ["conditional"], rw: "full",
      statements: [
        [SE, "async function sessionOrThrow(", ".findOne({ where: { id } })", "Session", "read", "key"],
        [SE, "async revoke(", "em.remove(session)", "Session", "delete", "key"],
      ],
      note: "the helper's promise chain (.then(found => found ?? undefined)) keeps the row and its key: the remove is keyed by the input id" },
    { file: SE, fn: "async verify(", at: ".transaction(", function: "src.sessions.sessions.service.SessionsService.verify",
      boundary: "transaction-callback", interactivity: "interactive-nonstrict", reasons: ["conditional", "dependent-key", "read-modify-write"], rw: "none",
      statements: [
        [SE, "async verify(", "em.findOneBy(Session", "Session", "read", "cda-mismatch"],
        [SE, "async verify(", "em.save(Session", "Session", "write", "dependent"],
      ],
      note: "the row found by token is put in the request object and saved from there: keyed by the read's result" },
    { file: LY, fn: "async reward(", at: "@Transactional(", up: true, function: "src.loyalty.loyalty.service.LoyaltyService.reward",
      boundary: "transactional-decorator", interactivity: "one-shot", reasons: [], rw: "full",
      statements: [[LC, "async execute(", "this.customers.increment(", "Customer", "write", "key"]],
      note: "the command bus (@nestjs/cqrs) runs the @CommandHandler of the command's class in the transaction" },
    { file: SE, fn: "async forgetDevice(", at: ".transaction(", function: "src.sessions.sessions.service.SessionsService.forgetDevice",
      boundary: "transaction-callback", interactivity: "interactive-nonstrict", reasons: ["dependent-key"], rw: "none",
      statements: [
        [SE, "async forgetDevice(", "em.find(Session", "Session", "read", "cda-mismatch"],
        [SE, "async forgetDevice(", "em.find(Session", "Session_devices", "read", "cda-mismatch"],
        [SE, "async forgetDevice(", "em.delete(Session", "Session", "delete", "dependent"],
      ],
      note: "the where goes through the ManyToMany relation: the junction table is read by the device's side, not by its key" },
    ac(OS, "async orderPage(", "this.orders.findOneByOrFail(", "src.orders.orders.service.OrdersService.orderPage",
      ["Order", "read", "key"], "read side, reached from OrdersController.page: no transaction around it"),
    ac(OS, "async orderPage(", "this.dataSource.manager.find(OrderLine", "src.orders.orders.service.OrdersService.orderPage",
      ["OrderLine", "read", "cda-mismatch"], "the order's id comes from the earlier read, a separate transaction: an input here"),
    ac(AU, "async record(", "m.insert(AuditLogSchema", "src.audit.audit.service.AuditService.record",
      ["AuditLog", "insert", "insert"], "the helper is called inside transactions (markShipped, touch) and outside (orderPage): counted in both"),
    ac(CS, "async countActive(", "this.productRepo.count(", "src.catalog.catalog.service.CatalogService.countActive",
      ["Product", "read", "cda-mismatch"], "@Transactional(SUPPORTS) opens no transaction; OrdersController.activeProducts calls it outside one"),
    ac(CO, "async peek(", "this.coupons.findOneBy(", "src.coupons.coupons.service.CouponsService.peek",
      ["Coupon", "read", "key"], "no application code calls it: an entry point"),
  ],
  entities: [
    { name: "Customer", pk: ["id"], unique: [["email"]] },
    { name: "Product", pk: ["id"], unique: [["sku"]] },
    { name: "Category", pk: ["id"], unique: [["slug"]] },
    { name: "Order", pk: ["id"], unique: [["customer", "reference"]] },
    { name: "OrderLine", pk: ["id"], unique: [] },
    { name: "Coupon", pk: ["code"], unique: [] },
    { name: "Payment", pk: ["id"], unique: [["order"], ["providerRef"]] },
    { name: "AuditLog", pk: ["id"], unique: [] },
    { name: "Notification", pk: ["id"], unique: [] },
    { name: "EmailNotification", pk: ["id"], unique: [] },
    { name: "OrderSummary", pk: [], unique: [] },
    { name: "Shipment", pk: ["orderId", "carrier"], unique: [] },
    { name: "Session", pk: ["id"], unique: [] },
    { name: "Device", pk: ["id"], unique: [] },
  ],
  diagnostics: [
    [".", "default-scope"],
    [OS, "escaped-manager"],
    [AU, "escaped-manager"],
    [OS, "missing-await"],
    [CA, "escaped-manager"],
  ],
};

const RA = "src/routes/accounts.ts";
const RT = "src/routes/transfers.ts";
const LE = "src/services/ledger.ts";
const IN = "src/services/interest.ts";
const OB = "src/services/outbound.ts";
const LA = "src/services/legacy-admin.ts";

const AD = "src/routes/admin.ts";
const FS = "src/container/services.ts";

const EXPRESS_LEDGER = {
  transactions: [
    { file: AD, fn: "/admin/accounts/:id/freeze", at: ".transaction(", function: "src.routes.admin.adminRouter.post@8",
      boundary: "transaction-callback", interactivity: "interactive-nonstrict", reasons: ["conditional"], rw: "full",
      statements: [
        [AD, "/admin/accounts/:id/freeze", "findOneByOrFail(Account", "Account", "read", "key"],
        [FS, "async freeze(", "update(Account", "Account", "write", "key"],
        [FS, "async freeze(", "insert(AuditEvent", "AuditEvent", "insert", "insert"],
      ],
      note: "the service is resolved from the container by its registered name; withTransaction(manager) binds its copy to the transaction. findOneByOrFail throws when the account is missing, so the freeze runs only after that read found it (conditional)" },
    { file: AD, fn: "/admin/accounts/:id/report", at: ".transaction(", function: "src.routes.admin.adminRouter.post@18",
      boundary: "transaction-callback", interactivity: "one-shot", reasons: [], rw: "full",
      statements: [[AD, "/admin/accounts/:id/report", "findOneByOrFail(Account", "Account", "read", "key"]],
      note: "reportingService is registered nowhere in the app: its calls are unresolved-receiver steps (the transaction is incomplete)" },
    { file: RT, fn: 'transfersRouter.post("/transfers",', at: "startTransaction(", function: "src.routes.transfers.transfersRouter.post@12",
      boundary: "query-runner", interactivity: "interactive-nonstrict",
      reasons: ["conditional", "generated-key", "read-modify-write"], rw: "partial",
      statements: [
        [RT, 'transfersRouter.post("/transfers",', "findOneBy(Transfer", "Transfer", "read", "cda-mismatch"],
        [RT, 'transfersRouter.post("/transfers",', "{ id: fromId }", "Account", "lock", "key"],
        [RT, 'transfersRouter.post("/transfers",', "{ id: toId }", "Account", "lock", "key"],
        [RT, 'transfersRouter.post("/transfers",', "save([from, to])", "Account", "write", "key"],
        [RT, 'transfersRouter.post("/transfers",', "save(Transfer", "Transfer", "insert", "insert"],
        [RT, 'transfersRouter.post("/transfers",', /await runner\.manager$/, "LedgerEntry", "insert", "insert"],
      ],
      note: "idempotency lookup by a unique business key, then read-modify-write; ledger rows use the transfer's generated id" },
    { file: RT, fn: '"/transfers/:id/reverse"', at: "withQueryRunner(", function: "src.routes.transfers.transfersRouter.post@55",
      boundary: "query-runner", interactivity: "interactive-nonstrict", reasons: ["read-modify-write"], rw: "full",
      statements: [
        [RT, '"/transfers/:id/reverse"', "findOneOrFail(Transfer", "Transfer", "read", "key"],
        [RT, '"/transfers/:id/reverse"', "manager.insert(LedgerEntry", "LedgerEntry", "insert", "insert"],
        [RT, '"/transfers/:id/reverse"', "manager.update(Transfer", "Transfer", "write", "key"],
      ],
      note: "through the project's QueryRunner wrapper withQueryRunner" },
    { file: RA, fn: '"/accounts/by-number/:number"', at: "startTransaction(", function: "src.routes.accounts.accountsRouter.delete@21",
      boundary: "query-runner", interactivity: "interactive-nonstrict", reasons: ["conditional", "dependent-key", "read-modify-write"], rw: "none",
      statements: [
        [RA, '"/accounts/by-number/:number"', "findOneBy(Account", "Account", "read", "cda-mismatch"],
        [RA, '"/accounts/by-number/:number"', "delete(LedgerEntry", "LedgerEntry", "delete", "cda-mismatch"],
        [RA, '"/accounts/by-number/:number"', "save(account)", "Account", "write", "dependent"],
      ] },
    { file: RA, fn: "async function statementHandler(", at: "startTransaction(", function: "src.routes.accounts.statementHandler",
      boundary: "query-runner", interactivity: "one-shot", reasons: [], rw: "none",
      statements: [
        [RA, "async function statementHandler(", "qr.manager.find(", "LedgerEntry", "read", "range"],
        [RA, "async function statementHandler(", "qr.manager.count(", "LedgerEntry", "read", "cda-mismatch"],
      ] },
    { file: IN, fn: "async function applyInterest(", at: "startTransaction(", function: "src.services.interest.applyInterest",
      boundary: "query-runner", interactivity: "interactive-nonstrict",
      reasons: ["conditional", "dependent-key", "loop-over-results", "read-modify-write"], rw: "partial",
      statements: [
        [IN, "async function applyInterest(", "runner.manager.find(", "Account", "read", "cda-mismatch"],
        [IN, "async function applyInterest(", "runner.manager.update(", "Account", "write", "dependent"],
        [IN, "async function applyInterest(", "runner.manager.insert(", "LedgerEntry", "insert", "insert"],
      ] },
    { file: LE, fn: "async function deposit(", at: ".transaction(", function: "src.services.ledger.deposit",
      boundary: "transaction-callback", interactivity: "one-shot", reasons: [], rw: "full",
      statements: [
        [LE, "async function postEntry(", "manager.insert(", "LedgerEntry", "insert", "insert"],
        [LE, "async function postEntry(", "manager.increment(", "Account", "write", "key"],
      ] },
    { file: LE, fn: "async function withdraw(", at: ".transaction(", function: "src.services.ledger.withdraw",
      boundary: "transaction-callback", interactivity: "interactive-nonstrict", reasons: ["conditional"], rw: "full",
      statements: [
        [LE, "async function withdraw(", "m.query(", "Account", "raw", "key"],
        [LE, "async function withdraw(", "m.insert(LedgerEntry", "LedgerEntry", "insert", "insert"],
      ] },
    { file: LE, fn: "async function freezeAccounts(", at: ".transaction(", function: "src.services.ledger.freezeAccounts",
      boundary: "transaction-callback", interactivity: "one-shot", reasons: [], rw: "none",
      statements: [[LE, "async function freezeAccounts(", "m.update(Account", "Account", "write", "cda-mismatch"]] },
    { file: LE, fn: "async function reclassifyEntries(", at: ".transaction(", function: "src.services.ledger.reclassifyEntries",
      boundary: "transaction-callback", interactivity: "interactive-nonstrict", reasons: ["conditional", "dependent-key"], rw: "none",
      statements: [
        [LE, "async function reclassifyEntries(", "m.find(LedgerEntry", "LedgerEntry", "read", "range"],
        [LE, "async function reclassifyEntries(", "m.update(LedgerEntry", "LedgerEntry", "write", "dependent"],
      ] },
    { file: LE, fn: "async function recordBatch(", at: ".transaction(", function: "src.services.ledger.recordBatch",
      boundary: "transaction-callback", interactivity: "one-shot", reasons: [], rw: "full",
      statements: [[LE, "async function recordBatch(", "await m", "LedgerEntry", "insert", "insert"]] },
    { file: LE, fn: "async function searchAccounts(", at: ".transaction(", function: "src.services.ledger.searchAccounts",
      boundary: "transaction-callback", interactivity: "one-shot", reasons: [], rw: "none",
      statements: [[LE, "async function searchAccounts(", /^\s+m$/, "Account", "read", "pattern"]] },
    { file: LE, fn: "async function moveEntry(", at: "beginTransaction()", function: "src.services.ledger.moveEntry",
      boundary: "query-runner", interactivity: "one-shot", reasons: [], rw: "full",
      statements: [[LE, "async function moveEntry(", "runner.manager.update(", "LedgerEntry", "write", "key"]],
      note: "the runner comes from the project's factory beginTransaction(), which starts the transaction" },
    { file: OB, fn: "async function notifyOwner(", at: ".transaction(", function: "src.services.outbound.notifyOwner",
      boundary: "transaction-callback", interactivity: "interactive-strict", reasons: ["http"], rw: "partial",
      statements: [
        [OB, "async function notifyOwner(", "m.find(Webhook", "Webhook", "read", "cda-mismatch"],
        [OB, "async function notifyOwner(", "m.insert(AuditEvent", "AuditEvent", "insert", "insert"],
      ] },
    { file: OB, fn: "async function closeWithAuditFile(", at: ".transaction(", function: "src.services.outbound.closeWithAuditFile",
      boundary: "transaction-callback", interactivity: "interactive-strict", reasons: ["file"], rw: "full",
      statements: [[OB, "async function closeWithAuditFile(", "m.update(Account", "Account", "write", "key"]] },
    { file: OB, fn: "async function exportStatement(", at: ".transaction(", function: "src.services.outbound.exportStatement",
      boundary: "transaction-callback", interactivity: "interactive-strict", reasons: ["storage"], rw: "partial",
      statements: [
        [OB, "async function exportStatement(", "m.find(LedgerEntry", "LedgerEntry", "read", "cda-mismatch"],
        [OB, "async function exportStatement(", "m.insert(AuditEvent", "AuditEvent", "insert", "insert"],
      ] },
    { file: OB, fn: "async function lockedAdjust(", at: ".transaction(", function: "src.services.outbound.lockedAdjust",
      boundary: "transaction-callback", interactivity: "interactive-strict", reasons: ["cache"], rw: "full",
      statements: [[OB, "async function lockedAdjust(", "m.increment(Account", "Account", "write", "key"]] },
    { file: OB, fn: "async function publishPosting(", at: ".transaction(", function: "src.services.outbound.publishPosting",
      boundary: "transaction-callback", interactivity: "interactive-strict", reasons: ["queue"], rw: "full",
      statements: [[OB, "async function publishPosting(", "m.insert(LedgerEntry", "LedgerEntry", "insert", "insert"]] },
    { file: OB, fn: "async function signStatement(", at: ".transaction(", function: "src.services.outbound.signStatement",
      boundary: "transaction-callback", interactivity: "interactive-strict", reasons: ["subprocess"], rw: "full",
      statements: [[OB, "async function signStatement(", "m.findOneByOrFail(Account", "Account", "read", "key"]] },
    { file: LA, fn: "async function pruneAudit(", at: ".transaction(", function: "src.services.legacy-admin.pruneAudit",
      boundary: "transaction-callback", interactivity: "one-shot", reasons: [], rw: "none",
      statements: [[LA, "async function pruneAudit(", "m.delete(AuditEvent", "AuditEvent", "delete", "range"]],
      note: "getRepository(AuditEvent).insert escapes the transaction (escaped-manager)" },
    { file: LA, fn: "async function registerWebhook(", at: ".transaction(", function: "src.services.legacy-admin.registerWebhook",
      boundary: "transaction-callback", interactivity: "one-shot", reasons: [], rw: "full",
      statements: [[LA, "async function registerWebhook(", "m.save(Webhook", "Webhook", "insert", "insert"]],
      note: "Webhook.findOneBy (ActiveRecord static) runs outside the transaction (escaped-manager)" },
    { file: LA, fn: "async function pruneAuditBuilder(", at: ".transaction(", function: "src.services.legacy-admin.pruneAuditBuilder",
      boundary: "transaction-callback", interactivity: "one-shot", reasons: [], rw: "none",
      statements: [[LA, "async function pruneAuditBuilder(", "m.createQueryBuilder()", "AuditEvent", "delete", "range"]] },
    ac(RA, 'accountsRouter.get("/accounts/:id",', "AppDataSource.getRepository(Account).findOneByOrFail(", "src.routes.accounts.accountsRouter.get@63",
      ["Account", "read", "key"], "a route handler outside any transaction"),
    ac(RA, 'accountsRouter.get("/accounts/:id",', "AppDataSource.getRepository(LedgerEntry)", "src.routes.accounts.accountsRouter.get@63",
      ["LedgerEntry", "read", "range"], "query builder: account by equality and amount by a range"),
  ],
  entities: [
    { name: "Account", pk: ["id"], unique: [["number"]] },
    { name: "Transfer", pk: ["id"], unique: [["idempotencyKey"]] },
    { name: "LedgerEntry", pk: ["id"], unique: [] },
    { name: "AuditEvent", pk: ["id"], unique: [] },
    { name: "Webhook", pk: ["id"], unique: [["owner", "event"]] },
  ],
  diagnostics: [
    [".", "default-scope"],
    ["src/legacy/broken.ts", "parse-error"],
    ["src/lib/metrics.ts", "unresolved-import"],
    ["scripts/seed.js", "unknown-orm-pattern"],
    [LA, "escaped-manager"],
  ],
};

const APPS = { "nest-shop": NEST_SHOP, "express-ledger": EXPRESS_LEDGER };
const check = process.argv.includes("--check");
let stale = false;
for (const [app, spec] of Object.entries(APPS)) {
  const text = JSON.stringify(build(app, spec), null, 2) + "\n";
  const target = path.join(HERE, app, "expected.json");
  if (check) {
    if (!fs.existsSync(target) || fs.readFileSync(target, "utf8") !== text) {
      console.error(`${target} is stale: run node ${path.relative(process.cwd(), __filename)}`);
      stale = true;
    }
  } else fs.writeFileSync(target, text);
}
process.exit(stale ? 1 : 0);
