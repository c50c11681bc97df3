// `npm run bus:generate`: writes messages.generated.ts from the schema files (see schema-types.ts).
import { writeFileSync } from "node:fs";
import { GENERATED, generatedMessages } from "./schema-types.ts";

writeFileSync(GENERATED, generatedMessages());
