import { readFileSync, writeFileSync } from 'node:fs';
const file = process.argv[2];
const lock = JSON.parse(readFileSync(file, 'utf8'));
const pkgs = lock.packages;
const platform = (name) => {
  const p = name.replace('@unrs/resolver-binding-', '');
  const [os, cpu0, abi] = p.split('-');
  const cpu = cpu0;
  const entry = { os: [os], cpu: [cpu] };
  if (os === 'linux') entry.libc = [abi && abi.startsWith('musl') ? 'musl' : 'glibc'];
  return entry;
};
let added = 0;
for (const [path, meta] of Object.entries(pkgs)) {
  for (const [dep, version] of Object.entries(meta.optionalDependencies ?? {})) {
    if (!dep.startsWith('@unrs/resolver-binding-')) continue;
    const key = `node_modules/${dep}`;
    if (pkgs[key]) continue;
    const { os, cpu, libc } = platform(dep);
    pkgs[key] = { version, cpu, dev: true, ...(libc ? { libc } : {}), license: 'MIT', optional: true, os };
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(pkgs).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)),
);
writeFileSync(file, JSON.stringify(lock, null, 2) + '\n');
console.log('added', added);
