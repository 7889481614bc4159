from django.urls import path

from shop import views

app_name = "shop"

urlpatterns = [
    path("products/", views.product_list, name="product-list"),
    path("api/products/search/", views.product_search_api, name="product-search"),
    path("api/products/<int:product_id>/stock/", views.product_stock, name="product-stock"),
    path("orders/<str:number>/", views.order_detail, name="order-detail"),
    path("orders/<str:number>/coupon/", views.apply_coupon_view, name="apply-coupon"),
    path("orders/<str:number>/cancel/", views.CancelOrderView.as_view(), name="cancel-order"),
    path("orders/<str:number>/return/", views.request_return, name="request-return"),
    path("checkout/", views.CheckoutView.as_view(), name="checkout"),
    path("cart/summary/", views.cart_summary, name="cart-summary"),
    path("account/addresses/", views.AddressBookView.as_view(), name="addresses"),
    path("staff/reprice/", views.bulk_reprice, name="bulk-reprice"),
    path("staff/products/<int:product_id>/image/", views.upload_product_image, name="upload-image"),
]
