import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { capitaliseWords, upperFirst } from '../../src/contacts/labels.js';
import { formatLabels, labelFormatDigit } from '../../src/database/json-labels.js';

/** What PostgreSQL writes for a label: the marker byte, the format's digit, the label as JSON. */
const marked = (format: (text: string) => string, label: string) =>
  `\u0001${labelFormatDigit(format)}${JSON.stringify(label)}`;

describe('labels in JSON written by PostgreSQL', () => {
  it('are formatted by the JS functions, anywhere in the text, whatever the label holds', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.string({ unit: 'binary' }), fc.boolean()), { maxLength: 8 }), (labels) => {
        const format = (words: boolean) => (words ? capitaliseWords : upperFirst);
        const written = `[${labels.map(([label, words]) => `{"type":${marked(format(words), label)},"n":"\\u0001"}`).join(',')}]`;
        const expected = JSON.stringify(labels.map(([label, words]) => ({ type: format(words)(label), n: '\u0001' })));
        expect(formatLabels(written)).toBe(expected);
      }),
    );
  });

  it('a text without markers is handed back as it is', () => {
    const text = '{"type":"mobile","escaped":"\\u0001"}';
    expect(formatLabels(text)).toBe(text);
  });
});
