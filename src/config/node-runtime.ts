/**
 * The Node.js line the service supports: 24 LTS, from 24.11 (package.json's `engines` says the
 * same, and a test keeps the two equal). Node 20 is past its end of life and the tracing
 * packages need 22.15 or later; `npm start` and `npm run cli` run on the project's own Node 24
 * (the `node` development dependency), so only a process started by hand can meet another one.
 */
export const SUPPORTED_NODE = { major: 24, minor: 11, range: '^24.11.0' } as const;

/** Why `version` (as in `process.versions.node`) cannot run the service, or null when it can. */
export function unsupportedNodeReason(version: string): string | null {
  const [major = NaN, minor = NaN] = version.split('.').map(Number);
  if (major === SUPPORTED_NODE.major && minor >= SUPPORTED_NODE.minor) return null;
  return (
    `Node.js ${version} is not supported: Finance Intake runs on Node.js ${SUPPORTED_NODE.range} ` +
    `(npm start and npm run cli use the project's own Node.js ${SUPPORTED_NODE.major}, installed by npm ci).`
  );
}
