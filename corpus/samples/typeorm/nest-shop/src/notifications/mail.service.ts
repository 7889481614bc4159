import { Injectable } from "@nestjs/common";
import * as nodemailer from "nodemailer";

@Injectable()
export class MailService {
  private readonly transport = nodemailer.createTransport({ host: "smtp.internal", port: 25 });

  async orderConfirmation(email: string, reference: string): Promise<void> {
    await this.transport.sendMail({ to: email, subject: `Order ${reference}`, text: "Thank you!" });
  }
}
