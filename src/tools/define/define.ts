import { type ArgsOf, type ParamSpecs, jsonSchemaOf, parseArgs } from './args.js';
import type { ToolBinding, ToolDefinition } from '../binding/types.js';

/** A tool declared once: its JSON Schema and its argument parser come from `params`. */
export function defineTool<S extends ParamSpecs>(spec: {
  name: string;
  description: string;
  params: S;
  handler(args: ArgsOf<S>, ctx: ToolBinding): Promise<string>;
}): ToolDefinition<ArgsOf<S>> {
  return {
    name: spec.name,
    description: spec.description,
    parameters: jsonSchemaOf(spec.params),
    handler: spec.handler,
    async invoke(raw: string, ctx: ToolBinding): Promise<string> {
      const { args, ignored } = parseArgs(spec.name, spec.params, raw);
      const result = await spec.handler(args, ctx);
      return ignored.length > 0
        ? `${result}\n(Note: ignored unknown argument${ignored.length > 1 ? 's' : ''} ${ignored.map((k) => JSON.stringify(k)).join(', ')}.)`
        : result;
    },
  };
}
