// Hugging Face's own tokenizer (tokenizers.js) as the reference for
// tokencount's tokenizer.json reader.
// usage: node encode.mjs MODEL_DIR < texts.json > ids.json
// MODEL_DIR holds tokenizer.json and tokenizer_config.json; texts.json is a
// JSON array of strings; ids.json the array of their token ids, without
// the special tokens a template adds.
import { Tokenizer } from "@huggingface/tokenizers";
import { readFileSync } from "node:fs";

const dir = process.argv[2];
const read = (name) => JSON.parse(readFileSync(`${dir}/${name}`, "utf8"));
const tokenizer = new Tokenizer(read("tokenizer.json"), read("tokenizer_config.json"));
const texts = JSON.parse(readFileSync(0, "utf8"));
const ids = texts.map((t) => tokenizer.encode(t, { add_special_tokens: false }).ids);
process.stdout.write(JSON.stringify(ids));
