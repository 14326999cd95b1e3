#!/usr/bin/env node
/**
 * The dependency rules of src/ (docs/design.md §8): the rules written in
 * .dependency-cruiser.cjs (file cycles, layers), plus cycles between units, which
 * dependency-cruiser cannot express as a rule. `npm run lint:deps` runs it and exits 1 on
 * any violation; test/architecture.test.ts uses checkDependencies().
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * @typedef {{ rule: string, from: string, to: string, message: string }} Violation
 */

/** The unit of a file under src/: its folder (`vault/`), or the file itself when it lies directly in src/. */
export function unitOf(file) {
  const match = /^src\/([^/]+\/|[^/]+$)/.exec(file);
  return match ? match[1] : undefined;
}

/** Strongly connected components with more than one node (Tarjan), each sorted. */
function cycles(graph) {
  let index = 0;
  const indices = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const visit = (node) => {
    indices.set(node, index);
    low.set(node, index);
    index++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node)?.keys() ?? []) {
      if (!indices.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node), low.get(next)));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node), indices.get(next)));
    }
    if (low.get(node) !== indices.get(node)) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!indices.has(node)) visit(node);
  return found;
}

/** The shortest way from `start` back to itself through `members` (breadth first). */
function loopThrough(graph, members, start) {
  const previous = new Map();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift();
    for (const next of [...graph.get(node).keys()].sort()) {
      if (!members.has(next) || previous.has(next)) continue;
      previous.set(next, node);
      if (next === start) {
        const path = [start];
        for (let at = previous.get(start); at !== start; at = previous.get(at)) path.unshift(at);
        return [start, ...path];
      }
      queue.push(next);
    }
  }
  return [start];
}

/**
 * Cycles between units, type-only imports included: one violation per group of units tied
 * together, naming one loop through them and the file imports that make each step.
 * @param {import('dependency-cruiser').IModule[]} modules
 * @returns {Violation[]}
 */
export function unitCycles(modules) {
  /** unit → unit → the file imports between them */
  const graph = new Map();
  for (const module of modules) {
    const from = unitOf(module.source);
    if (!from) continue;
    if (!graph.has(from)) graph.set(from, new Map());
    for (const dependency of module.dependencies) {
      const to = unitOf(dependency.resolved);
      if (!to || to === from) continue;
      const edges = graph.get(from);
      if (!edges.has(to)) edges.set(to, []);
      edges.get(to).push(`${module.source} → ${dependency.resolved}`);
    }
  }
  return cycles(graph).map((component) => {
    const loop = loopThrough(graph, new Set(component), component[0]);
    const steps = loop.slice(1).map((to, i) => {
      const imports = graph.get(loop[i]).get(to);
      return imports.slice(0, 3).join(', ') + (imports.length > 3 ? ` and ${imports.length - 3} more` : '');
    });
    return {
      rule: 'no-unit-cycle',
      from: loop[0],
      to: loop.slice(1).join(' → '),
      message:
        `units ${component.join(', ')} use each other in a cycle (type-only imports count); ` +
        `this loop goes ${steps.join('; then ')}. Move what they share down to a unit below them, or pass it in.`,
    };
  });
}

/**
 * Every violation of the dependency rules in `root`/src/ (the project's, unless a test
 * passes another folder).
 * @returns {Promise<Violation[]>}
 */
export async function checkDependencies(root = REPO_ROOT, configFile = path.join(REPO_ROOT, '.dependency-cruiser.cjs')) {
  const options = await extractDepcruiseOptions(configFile);
  const { output } = await cruise(['src'], { ...options, baseDir: root, outputType: 'json' });
  const result = typeof output === 'string' ? JSON.parse(output) : output;
  const comments = new Map(options.ruleSet.forbidden.map((rule) => [rule.name, rule.comment ?? '']));
  const ruleViolations = result.summary.violations.map((v) => ({
    rule: v.rule.name,
    from: v.from,
    to: v.cycle ? v.cycle.map((step) => step.name).join(' → ') : v.to,
    message: comments.get(v.rule.name) ?? '',
  }));
  return [...ruleViolations, ...unitCycles(result.modules)];
}

/** One violation as a person reads it. */
export function describeViolation(v) {
  return `${v.rule}: ${v.from} → ${v.to}\n    ${v.message}`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const violations = await checkDependencies();
  for (const v of violations) console.log(describeViolation(v));
  console.log(violations.length === 0 ? 'dependency rules: no violations' : `dependency rules: ${violations.length} violations`);
  process.exitCode = violations.length === 0 ? 0 : 1;
}
