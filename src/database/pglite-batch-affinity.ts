import type { PGlite } from '@electric-sql/pglite';
import type { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/** One frontend protocol message waiting for the single PGlite session. */
interface QueuedMessage {
  readonly handlerId: number;
  readonly message: Uint8Array;
  resolve(bytes: number): void;
  reject(error: unknown): void;
  onData(data: Uint8Array): void;
}

/** The parts of pglite-socket's (unexported) query queue this module replaces or reads. */
interface QueryQueue {
  queue: QueuedMessage[];
  processing: boolean;
  lastHandlerId: number | null;
  processQueue(): Promise<void>;
  clearQueueForHandler(handlerId: number): void;
}

/**
 * Extended-protocol messages that leave the session's unnamed statement or portal in use until
 * the client's Sync: Parse, Bind, Describe, Execute, Close and Flush.
 */
const BATCH_MESSAGES = new Set(['P', 'B', 'D', 'E', 'C', 'H'].map((letter) => letter.charCodeAt(0)));

function queueOf(server: PGLiteSocketServer): QueryQueue {
  const queue = (server as unknown as { queryQueue?: Partial<QueryQueue> }).queryQueue;
  if (
    !queue ||
    !Array.isArray(queue.queue) ||
    typeof queue.processQueue !== 'function' ||
    typeof queue.clearQueueForHandler !== 'function' ||
    !('lastHandlerId' in queue)
  ) {
    throw new Error('pglite-socket changed its query queue: review src/database/pglite-batch-affinity.ts');
  }
  return queue as QueryQueue;
}

/**
 * pglite-socket serves every connection from PGlite's one session and takes their messages one
 * at a time, keeping to one connection only while a transaction is open. Two connections running
 * parameterised statements at once then interleave Parse, Bind and Execute: one binds the
 * other's statement ("bind message supplies 1 parameters, but prepared statement requires 5"),
 * or reads the other's rows. And a message that throws inside the queue stops it for good.
 * (Reported upstream as electric-sql/pglite#1046, open for the version pinned here.)
 *
 * This replaces the server's queue loop with one that also keeps to a connection from its first
 * extended-protocol message to its Sync, and goes on after a failed message. The service's own
 * embedded database opens one connection; the test harness and operators' tools (psql, a second
 * process on the same server) open several.
 */
export function keepProtocolBatchesTogether(server: PGLiteSocketServer, db: PGlite): void {
  const queue = queueOf(server);
  const openBatches = new Set<number>();

  queue.processQueue = async function processQueue(this: QueryQueue): Promise<void> {
    if (this.processing) return;
    this.processing = true;
    try {
      while (this.queue.length > 0) {
        const owner = this.lastHandlerId;
        const pinned = owner !== null && (openBatches.has(owner) || db.isInTransaction());
        const index = pinned ? this.queue.findIndex((item) => item.handlerId === owner) : 0;
        // The owner's next message has not arrived yet: it restarts the loop when it does.
        if (index === -1) return;
        const [item] = this.queue.splice(index, 1);
        if (!item) return;
        let bytes = 0;
        try {
          await db.runExclusive(() =>
            db.execProtocolRawStream(item.message, {
              onRawData: (data: Uint8Array) => {
                bytes += data.length;
                item.onData(data);
              },
            }),
          );
          item.resolve(bytes);
        } catch (error) {
          item.reject(error);
        }
        this.lastHandlerId = item.handlerId;
        const type = item.message[0];
        if (type !== undefined && BATCH_MESSAGES.has(type)) openBatches.add(item.handlerId);
        else openBatches.delete(item.handlerId);
      }
    } finally {
      this.processing = false;
    }
  };

  // A connection that goes away in the middle of a batch must not keep the others waiting.
  const clearQueueForHandler = queue.clearQueueForHandler.bind(queue);
  queue.clearQueueForHandler = (handlerId: number): void => {
    clearQueueForHandler(handlerId);
    openBatches.delete(handlerId);
    if (queue.lastHandlerId === handlerId && !db.isInTransaction()) {
      queue.lastHandlerId = null;
      void queue.processQueue();
    }
  };
}
