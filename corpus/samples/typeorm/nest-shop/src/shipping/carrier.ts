import axios from "axios";

/** The carrier the shop books parcels with; bound to a class in AppModule's providers. */
export const CARRIER = "CARRIER";

export interface Carrier {
  readonly name: string;
  book(orderId: string): Promise<string>;
}

export class ParcelCarrier implements Carrier {
  readonly name = "parcel";
  async book(orderId: string): Promise<string> {
    const res = await axios.post("https://carrier.example/bookings", { orderId });
    return res.data.label;
  }
}
