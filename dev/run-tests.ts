import { spawn } from 'node:child_process';
import { listProcesses } from './stack/children';

/**
 * `npm test`: the unit, time-skipping and replay projects one file at a time (the Java test
 * server must answer within seconds of its start, which a busy machine delays), then the
 * projects with real servers two files at once; `npm test -- <jest args>` runs jest once with those. Each jest run gets a process group
 * of its own, so whatever it started can be found afterwards: a process still alive then is a
 * teardown that did not happen — it is killed, named, and the run fails.
 */
const phases: string[][] =
  process.argv.length > 2
    ? [process.argv.slice(2)]
    : [
        ['--selectProjects', 'unit', 'workflow', 'replay', '--maxWorkers=1'],
        [
          '--selectProjects',
          'workflow-dev-server',
          'integration',
          'e2e',
          'faults',
          'postgres',
          'browser',
        ],
      ];

let running: number | undefined;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (running !== undefined) process.kill(-running, signal);
  });
}

function runJest(args: string[]): Promise<number> {
  return new Promise((resolve) => {
    const jest = spawn(process.execPath, [require.resolve('jest/bin/jest'), ...args], {
      stdio: 'inherit',
      detached: true,
    });
    running = jest.pid;
    jest.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

/** Processes of jest's group still running once jest has exited. */
async function leftoversOf(group: number) {
  // A server told to stop as jest exited may need a moment; after that it counts as left over.
  for (let tries = 0; ; tries++) {
    const alive = listProcesses().filter((p) => p.groupId === group && p.state !== 'Z');
    if (alive.length === 0 || tries === 20) return alive;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function main(): Promise<number> {
  let failed = false;
  for (const args of phases) {
    const code = await runJest(args);
    const group = running!;
    running = undefined;
    const leftovers = await leftoversOf(group);
    if (leftovers.length > 0) {
      console.error(
        `\nnpm test: ${leftovers.length} process(es) the tests started were still running after ` +
          'jest ended (killed now):\n' +
          leftovers.map((p) => `  ${p.pid} ${p.command.slice(0, 160)}`).join('\n'),
      );
      for (const p of leftovers) {
        try {
          process.kill(p.pid, 'SIGKILL');
        } catch {
          // gone meanwhile
        }
      }
      failed = true;
    }
    if (code !== 0) return code;
  }
  return failed ? 1 : 0;
}

void main().then((code) => process.exit(code));
