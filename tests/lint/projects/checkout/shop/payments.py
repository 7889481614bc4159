import requests


def charge(order_id, amount):
    return requests.post("https://pay.example.com/charge", json={"order": order_id, "amount": amount})
