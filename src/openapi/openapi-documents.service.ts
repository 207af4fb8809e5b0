import { Injectable } from '@nestjs/common';
import type { ApiVersion } from '../common/http/api-version.js';
import type { OpenApiDocument } from './openapi-documents.js';

/**
 * The two documents, built on first use (not at start-up, which stays as fast as it was) from
 * the running application, which app.factory.ts hands over.
 */
@Injectable()
export class OpenApiDocuments {
  private build?: () => Record<ApiVersion, OpenApiDocument>;
  private documents?: Record<ApiVersion, OpenApiDocument>;
  private readonly texts = new Map<ApiVersion, string>();

  useBuilder(build: () => Record<ApiVersion, OpenApiDocument>): void {
    this.build = build;
  }

  document(version: ApiVersion): OpenApiDocument {
    if (!this.documents) {
      if (!this.build) throw new Error('The OpenAPI documents have no builder (app.factory.ts sets it).');
      this.documents = this.build();
    }
    return this.documents[version];
  }

  /** The document as served: JSON text, so the v1 casing step leaves it alone. */
  json(version: ApiVersion): string {
    let text = this.texts.get(version);
    if (text === undefined) {
      text = JSON.stringify(this.document(version));
      this.texts.set(version, text);
    }
    return text;
  }
}
