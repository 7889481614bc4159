import { Injectable } from "@nestjs/common";
import { HttpService } from "@nestjs/axios";
import { firstValueFrom } from "rxjs";

/** Talks to the payment provider over HTTP. */
@Injectable()
export class PaymentsClient {
  constructor(private readonly http: HttpService) {}

  async charge(reference: string, amount: number): Promise<string> {
    const res = await firstValueFrom(this.http.post("https://pay.example.com/charges", { reference, amount }));
    return res.data.id;
  }

  async refund(providerRef: string): Promise<void> {
    await firstValueFrom(this.http.post(`https://pay.example.com/charges/${providerRef}/refund`, {}));
  }
}
