import crypto from 'node:crypto';

/** What the customer is asked to pay for (spec 5.6: top-ups from 20 euro, per-country and Unlimited plans). */
export interface PaymentRequest {
  accountId: string;
  email: string;
  /** Euro. */
  amount: number;
  description: string;
}

export interface PaymentStart {
  /** The provider's reference for the payment, stored on the order. */
  reference: string;
  /** What to tell the customer (bank transfer details, a checkout link, ...). */
  instructions: string;
}

/**
 * A payment provider starts a payment; the order it belongs to is paid when the provider (or an operator
 * for the invoice provider) confirms it through Wallet.confirmOrder. A card provider would add a webhook
 * route that calls confirmOrder; the dashboard and the wallet stay the same.
 */
export interface PaymentProvider {
  readonly name: string;
  start(request: PaymentRequest): PaymentStart;
}

/** Pay by invoice: the customer gets a reference to quote on a bank transfer; an operator confirms it. */
export class InvoiceProvider implements PaymentProvider {
  readonly name = 'invoice';

  start(request: PaymentRequest): PaymentStart {
    const reference = `INV-${crypto.randomBytes(4).toString('hex').toUpperCase()}`;
    return {
      reference,
      instructions:
        `An invoice for ${request.amount.toFixed(2)} EUR (${request.description}) is on its way to ` +
        `${request.email}. Quote ${reference} with your transfer; the order is completed as soon as the ` +
        'payment is confirmed.',
    };
  }
}
