class OutOfStock(Exception):
    def __init__(self, sku):
        super().__init__(f"not enough stock for {sku}")
        self.sku = sku


class CouponRejected(Exception):
    pass


class CarrierError(Exception):
    pass
