import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { SigningDocumentsService } from './signing-documents.service.js';
import { InvalidSignatureException, unusablePayload } from './webhook-rejections.js';
import { firstText, parsePayload } from './webhook-payload.js';
import { hexSignature, signatureMatches } from './webhook-signature.js';
import { logSafe } from './log-safe.js';

/** Provider A: signature -> JSON and document id -> known document -> move. */
@Injectable()
export class ProviderAWebhook {
  private readonly logger = new Logger('SignProviderA');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly documents: SigningDocumentsService,
  ) {}

  async receive(body: Buffer, signature: string | undefined): Promise<void> {
    const secret = this.config.signProviderASecret;
    if (!secret) return this.reject('no secret configured', body);
    if (signature === undefined) return this.reject('signature missing', body);
    if (!signatureMatches(signature, hexSignature(secret, body))) return this.reject('signature mismatch', body);

    const payload = parsePayload(body);
    if (!payload) throw unusablePayload('payload', 'The payload must be a JSON object.');
    const documentId = firstText(payload, [['data', 'documentId'], ['documentId']]);
    if (documentId === undefined) throw unusablePayload('documentId', 'The document id field is required.');

    const document = await this.documents.find('a', documentId);
    if (!document) {
      this.logger.log(
        { provider: 'a', documentId: logSafe(documentId) },
        'Webhook for an unknown document acknowledged',
      );
      return;
    }
    const keyword = firstText(payload, [['event'], ['data', 'event'], ['status'], ['data', 'status']]) ?? '';
    await this.documents.moveProviderA(document.id, keyword);
  }

  /** Logs provider, reason and the document id when the body names one; never the signature. */
  private reject(reason: string, body: Buffer): never {
    const payload = parsePayload(body);
    const documentId = payload && firstText(payload, [['data', 'documentId'], ['documentId']]);
    this.logger.warn({ provider: 'a', reason, documentId: documentId && logSafe(documentId) }, 'Webhook rejected');
    throw new InvalidSignatureException();
  }
}
