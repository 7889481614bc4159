import { Module } from "@nestjs/common";
import { TypeOrmModule } from "@nestjs/typeorm";
import { Customer } from "./customers/customer.entity";
import { Product } from "./catalog/product.entity";
import { Category } from "./catalog/category.entity";
import { Order } from "./orders/order.entity";
import { OrderLine } from "./orders/order-line.entity";
import { Coupon } from "./coupons/coupon.entity";
import { Payment } from "./payments/payment.entity";
import { AuditLogSchema } from "./audit/audit-log.schema";
import { OrdersService } from "./orders/orders.service";
import { CatalogService } from "./catalog/catalog.service";
import { CustomersService } from "./customers/customers.service";
import { CouponsService } from "./coupons/coupons.service";
import { PaymentsService } from "./payments/payments.service";
import { ReportsService } from "./reports/reports.service";
import { CartController } from "./cart/cart.controller";
import { CartService } from "./cart/cart.service";
import { TransactionalConnection } from "./common/transactional-connection";
import { TransactionInterceptor } from "./common/transaction.interceptor";
import { Shipment } from "./shipping/shipment.entity";
import { ShippingService } from "./shipping/shipping.service";
import { CARRIER, ParcelCarrier } from "./shipping/carrier";
import { Session } from "./sessions/session.entity";
import { Device } from "./sessions/device.entity";
import { SessionsService } from "./sessions/sessions.service";
import { LoyaltyService } from "./loyalty/loyalty.service";
import { AwardPointsHandler } from "./loyalty/loyalty.commands";

const entities = [Customer, Product, Category, Order, OrderLine, Coupon, Payment, AuditLogSchema, Shipment, Session, Device];

@Module({
  imports: [
    TypeOrmModule.forRoot({ type: "postgres", url: process.env.DATABASE_URL, entities }),
    TypeOrmModule.forFeature(entities),
  ],
  controllers: [CartController],
  providers: [
    OrdersService, CatalogService, CustomersService, CouponsService, PaymentsService, ReportsService,
    CartService, TransactionalConnection, TransactionInterceptor, ShippingService, SessionsService, LoyaltyService, AwardPointsHandler,
    { provide: CARRIER, useClass: ParcelCarrier },
  ],
})
export class AppModule {}
