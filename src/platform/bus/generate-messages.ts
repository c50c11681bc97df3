// `npm run bus:generate`: writes messages.generated.ts and validators.generated.ts from the schema files (see schema-types.ts).
import { writeFileSync } from "node:fs";
import { GENERATED, GENERATED_VALIDATORS, generatedMessages, generatedValidators } from "./schema-types.ts";

writeFileSync(GENERATED, generatedMessages());
writeFileSync(GENERATED_VALIDATORS, generatedValidators());
