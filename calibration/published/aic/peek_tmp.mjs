import { execFileSync } from 'node:child_process'
import { parquetReadObjects } from 'hyparquet'
import { compressors } from 'hyparquet-compressors'
const [gitDir, path, ...filters] = process.argv.slice(2)
const commit = '095f58a51c4ca8e61b66ec108d86f223f8d559ce'
const bytes = execFileSync('git', ['--git-dir', gitDir, 'show', `${commit}:${path}`], { maxBuffer: 1 << 30 })
const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)
const t = await parquetReadObjects({ file, compressors })
console.error('rows', t.length, 'cols', Object.keys(t[0]).join(','))
let rows = t
for (const f of filters) { const [k, v] = f.split('='); rows = rows.filter(r => String(r[k]) === v) }
console.error('kept', rows.length)
for (const r of rows.slice(0, 4000)) console.log(JSON.stringify(r, (k, v) => typeof v === 'bigint' ? Number(v) : v))
