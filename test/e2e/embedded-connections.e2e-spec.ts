import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/database/embedded-postgres.js';
import { initialisedDataDir } from '../helpers/pglite-template.mjs';

/** A frontend message: type letter, length, body. */
function message(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

const text = (value: string) => Buffer.from(`${value}\0`, 'utf8');
const int16 = (value: number) => Buffer.from([value >> 8, value & 0xff]);
const int32 = (value: number) => {
  const buffer = Buffer.alloc(4);
  buffer.writeInt32BE(value);
  return buffer;
};

/** Parse of the unnamed statement. */
const parse = (sql: string) => message('P', text(''), text(sql), int16(0));
/** Bind of the unnamed statement to the unnamed portal, text parameters, then Execute and Sync. */
function bindExecuteSync(values: string[]): Buffer {
  const params = values.map((value) => Buffer.concat([int32(Buffer.byteLength(value)), Buffer.from(value)]));
  return Buffer.concat([
    message('B', text(''), text(''), int16(0), int16(values.length), ...params, int16(0)),
    message('E', text(''), int32(0)),
    message('S'),
  ]);
}

/** A connection speaking the wire protocol by hand, so a test decides when each message leaves. */
class RawConnection {
  private received = Buffer.alloc(0);
  private readonly socket;

  constructor(port: number) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.on('data', (chunk: Buffer) => (this.received = Buffer.concat([this.received, chunk])));
  }

  async start(): Promise<void> {
    const params = Buffer.from('user\0postgres\0database\0postgres\0\0', 'latin1');
    this.socket.write(Buffer.concat([int32(params.length + 8), int32(196608), params]));
    await this.next('Z');
  }

  send(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  /** Waits for a message of the type; the types of the messages before it, and it. */
  async next(type: string, timeoutMs = 5_000): Promise<string[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const types: string[] = [];
      let offset = 0;
      while (offset + 5 <= this.received.length) {
        const length = this.received.readInt32BE(offset + 1);
        if (offset + 1 + length > this.received.length) break;
        const found = String.fromCharCode(this.received[offset] ?? 0);
        types.push(found);
        offset += 1 + length;
        if (found === type) {
          this.received = this.received.subarray(offset);
          return types;
        }
      }
      if (Date.now() > deadline) throw new Error(`no ${type} message (saw ${types.join('')})`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  close(): void {
    this.socket.destroy();
  }
}

/**
 * Several connections to the embedded server at once (the test harness, a CLI and the service,
 * or two service processes): each one's parameterised statements run as its own, whatever the
 * others send in between.
 */
describe('embedded server with several connections', () => {
  let server: EmbeddedPostgres;

  beforeAll(async () => {
    server = await startEmbeddedPostgres(undefined, await initialisedDataDir());
  });

  afterAll(async () => {
    await server.stop();
  });

  it('keeps one connection’s Parse, Bind and Execute together while another sends its own', async () => {
    const port = Number(new URL(server.url).port);
    const [first, second] = [new RawConnection(port), new RawConnection(port)];
    await Promise.all([first.start(), second.start()]);
    try {
      first.send(parse('SELECT $1::text AS one'));
      await new Promise((resolve) => setTimeout(resolve, 100));
      // The second's whole statement arrives between the first's Parse and its Bind: it must wait.
      second.send(Buffer.concat([parse('SELECT $1::text || $2::text AS two'), bindExecuteSync(['a', 'b'])]));
      await new Promise((resolve) => setTimeout(resolve, 100));
      first.send(bindExecuteSync(['x']));
      const [firstTypes, secondTypes] = await Promise.all([first.next('Z'), second.next('Z')]);
      // ParseComplete, BindComplete, DataRow, CommandComplete, ReadyForQuery, no ErrorResponse
      // (ParameterStatus messages the server adds are left aside).
      const answered = (types: string[]) => types.filter((type) => type !== 'S');
      expect(answered(firstTypes)).toEqual(['1', '2', 'D', 'C', 'Z']);
      expect(answered(secondTypes)).toEqual(['1', '2', 'D', 'C', 'Z']);
    } finally {
      first.close();
      second.close();
    }
  });

  it('answers each of several pooled clients with its own rows', async () => {
    const clients = [new pg.Client(server.url), new pg.Client(server.url), new pg.Client(server.url)];
    await Promise.all(clients.map((client) => client.connect()));
    try {
      const runs = clients.map(async (client, c) => {
        const answers: string[] = [];
        for (let n = 0; n < 30; n++) {
          const values = Array.from({ length: c + 1 }, (_, i) => `${c}-${n}-${i}`);
          const placeholders = values.map((_, i) => `$${i + 1}::text`).join(' || ');
          const { rows } = await client.query<{ joined: string }>(`SELECT ${placeholders} AS joined`, values);
          answers.push(rows[0]?.joined ?? '');
        }
        return answers;
      });
      const results = await Promise.all(runs);
      results.forEach((answers, c) => {
        expect(answers).toEqual(
          Array.from({ length: 30 }, (_, n) => Array.from({ length: c + 1 }, (_, i) => `${c}-${n}-${i}`).join('')),
        );
      });
    } finally {
      await Promise.all(clients.map((client) => client.end()));
    }
  });

  it('serves the others when a connection goes away in the middle of a statement', async () => {
    const gone = new RawConnection(Number(new URL(server.url).port));
    await gone.start();
    gone.send(parse('SELECT 1'));
    await gone.next('1');
    gone.close();

    const client = new pg.Client(server.url);
    await client.connect();
    try {
      const { rows } = await client.query<{ answer: number }>('SELECT $1::int AS answer', [42]);
      expect(rows[0]?.answer).toBe(42);
    } finally {
      await client.end();
    }
  }, 20_000);
});
