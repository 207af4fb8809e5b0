import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { JsonText, RecordJson, serialiseJson, serialiseJsonBody } from '../../src/database/json-text.js';
import { toV1Record } from '../../src/common/casing/v1-casing.js';

/** A JSON value and its text in JSON.stringify's own form. */
const jsonValue = fc.jsonValue().map((value) => ({ value, text: JSON.stringify(value) }));

describe('JSON texts spliced into answers', () => {
  it('serialiseJson writes a JsonText as its text: the bytes of JSON.stringify of its value', () => {
    fc.assert(
      fc.property(fc.array(jsonValue, { maxLength: 6 }), fc.string(), (values, other) => {
        const withTexts = {
          other,
          list: values.map(({ text }) => new JsonText(text)),
          nested: { one: values[0] && new JsonText(values[0].text) },
        };
        const plain = { other, list: values.map(({ value }) => value), nested: { one: values[0]?.value } };
        expect(serialiseJson(withTexts)).toBe(JSON.stringify(plain));
      }),
    );
  });

  it('serialiseJsonBody: the UTF-8 bytes of JSON.stringify, a Buffer when texts are spliced in', () => {
    fc.assert(
      fc.property(fc.array(jsonValue, { maxLength: 6 }), fc.string({ unit: 'grapheme' }), (values, other) => {
        const withTexts = { other, list: values.map(({ text }) => new JsonText(text)) };
        const plain = JSON.stringify({ other, list: values.map(({ value }) => value) });
        const body = serialiseJsonBody(withTexts);
        expect(Buffer.isBuffer(body)).toBe(values.length > 0);
        expect(Buffer.from(body).equals(Buffer.from(plain))).toBe(true);
      }),
    );
    const written = serialiseJsonBody({ data: [new JsonText('{"name":"Zoë 😀 ✓"}')], next: 'é' });
    expect(Buffer.from(written).toString('utf8')).toBe('{"data":[{"name":"Zoë 😀 ✓"}],"next":"é"}');
  });

  it('anything else reads a JsonText as its value: JSON.stringify, value(), the v1 casing', () => {
    const record = new RecordJson<{ id: string; phone_numbers: { data: { number: string }[] } }>(
      'a',
      '{"id":"a","phone_numbers":{"data":[{"number":"1"}]}}',
    );
    expect(JSON.stringify({ data: record })).toBe('{"data":{"id":"a","phone_numbers":{"data":[{"number":"1"}]}}}');
    expect(record.value().phone_numbers.data[0]?.number).toBe('1');
    expect(record.id).toBe('a');
    expect(toV1Record(record as never)).toEqual({ ID: 'a', PhoneNumbers: { data: [{ Number: '1' }] } });
  });

  it('a client string that looks like a placeholder is written as a string, not spliced', () => {
    const lookalikes = ['\u0000', '\u00000:0', '"\\u0000', `\u0000${'0'.repeat(24)}:0`];
    const value = { texts: [new JsonText('{"a":1}')], lookalikes };
    expect(serialiseJson(value)).toBe(JSON.stringify({ texts: [{ a: 1 }], lookalikes }));
  });

  it('a serialisation inside a toJSON keeps its own texts apart', () => {
    const inner = { toJSON: () => serialiseJson({ b: new JsonText('[2]') }) };
    expect(serialiseJson({ a: new JsonText('[1]'), inner, c: new JsonText('3') })).toBe(
      JSON.stringify({ a: [1], inner: '{"b":[2]}', c: 3 }),
    );
  });
});
