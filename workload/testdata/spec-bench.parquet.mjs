// Writes spec-bench.parquet, the Parquet fixture of workload's dataset
// tests, with a writer that is not the reader under test (hyparquet-writer
// 0.17.0, Snappy pages, as Hugging Face's files are): LIST columns of
// text and of role/content groups, nulls and an empty list.
//   npm install hyparquet-writer@0.17.0 && node spec-bench.parquet.mjs
import { parquetWriteFile } from 'hyparquet-writer'
parquetWriteFile({
  filename: 'spec-bench.parquet',
  columnData: [
    { name: 'question_id', data: [81, 121, 122, 200] },
    { name: 'category', data: ['writing', 'coding', 'coding', null] },
    { name: 'turns', data: [['Compose a travel blog post.', 'Rewrite it.'], ['Write a median function.'], [], ['Translate: Guten Tag.']] },
    { name: 'max_len', data: [12n, 5n, null, 7n] },
    { name: 'messages', data: [[{role: 'system', content: 'Be brief.'}, {role: 'user', content: 'hi'}], null, [{role:'user', content:'x'}], []] },
  ],
  schema: [
    { name: 'root', num_children: 5 },
    { name: 'question_id', type: 'INT32', repetition_type: 'REQUIRED' },
    { name: 'category', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
    { name: 'turns', repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
    { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
    { name: 'element', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
    { name: 'max_len', type: 'INT64', repetition_type: 'OPTIONAL' },
    { name: 'messages', repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
    { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
    { name: 'element', repetition_type: 'OPTIONAL', num_children: 2 },
    { name: 'role', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
    { name: 'content', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
  ],
})
