import { Injectable, Logger } from '@nestjs/common';
import { SigningDocumentsService } from './signing-documents.service.js';
import { InvalidSignatureException, unusablePayload } from './webhook-rejections.js';
import { firstText, parsePayload, textAt } from './webhook-payload.js';
import { base64Signature, signatureMatches } from './webhook-signature.js';
import { logSafe } from './log-safe.js';

const ENVELOPE_EVENT = 'envelope-';

/**
 * Provider B: JSON and envelope id -> known envelope -> signature with the owning
 * enterprise's key -> `envelope-*` event -> move (terminal states ignore it).
 */
@Injectable()
export class ProviderBWebhook {
  private readonly logger = new Logger('SignProviderB');

  constructor(private readonly documents: SigningDocumentsService) {}

  /** `signatures`: every `X-SignProviderB-Signature-N` header value; any match is enough. */
  async receive(body: Buffer, signatures: readonly string[]): Promise<void> {
    const payload = parsePayload(body);
    if (!payload) throw unusablePayload('payload', 'The payload must be a JSON object.');
    const envelopeId = firstText(payload, [
      ['data', 'envelopeId'],
      ['envelopeId'],
      ['data', 'envelopeSummary', 'envelopeId'],
    ]);
    if (envelopeId === undefined) throw unusablePayload('envelopeId', 'The envelope id field is required.');

    const document = await this.documents.find('b', envelopeId);
    if (!document) return;

    const key = await this.documents.providerBKey(document.enterpriseId);
    if (key === undefined) return this.reject('no key stored for the enterprise', envelopeId);
    if (signatures.length === 0) return this.reject('signature missing', envelopeId);
    const expected = base64Signature(key, body);
    if (!signatures.some((signature) => signatureMatches(signature, expected))) {
      return this.reject('signature mismatch', envelopeId);
    }

    const event = textAt(payload, 'event')?.toLowerCase();
    if (!event?.startsWith(ENVELOPE_EVENT)) return;
    const status =
      firstText(payload, [
        ['data', 'envelopeSummary', 'status'],
        ['data', 'status'],
      ]) ?? event.slice(ENVELOPE_EVENT.length);
    await this.documents.moveProviderB(document.id, status);
  }

  private reject(reason: string, envelopeId: string): never {
    this.logger.warn({ provider: 'b', reason, envelopeId: logSafe(envelopeId) }, 'Webhook rejected');
    throw new InvalidSignatureException();
  }
}
