/**
 * Issue 28 (8): a collector whose sources name a credential variable that is unset says so at
 * start (one line each, on stderr) and records the names — never the values — in its launch
 * record, which status and the watchdog read.
 */
import { describe, expect, it } from 'vitest';
import { checkCredentials } from '../../src/runtime/credential-check.js';
import { githubSearchSource } from '../../src/sources/github-search.js';
import { credentialWarnings, type LaunchRecord } from '../../src/supervision/launch-record.js';

const LAUNCH: LaunchRecord = {
  command: 'run',
  cmdline: ['node', 'collector.js', 'run'],
  restartArgv: ['node', 'collector.js', 'run'],
  cwd: '/',
  dataDir: '/data',
  configFile: null,
};

function check(types: Array<{ type: string; env: string[] }>, env: NodeJS.ProcessEnv) {
  const said: string[] = [];
  const launch = checkCredentials(LAUNCH, types, env, (l) => said.push(l));
  return { launch, said };
}

describe('credentials at start', () => {
  it('an unset or empty variable: one line per variable naming its worker types, names recorded', () => {
    const { launch, said } = check(
      [
        { type: 'trending', env: ['GITHUB_TOKEN'] },
        { type: 'topics', env: ['GITHUB_TOKEN'] },
        { type: 'hub', env: ['HUB_TOKEN'] },
        { type: 'docs', env: [] },
      ],
      { HUB_TOKEN: '' },
    );
    expect(said).toEqual([
      'collector: warning: GITHUB_TOKEN is not set: worker types trending, topics run without it\n',
      'collector: warning: HUB_TOKEN is not set: worker type hub runs without it\n',
    ]);
    expect(launch.unsetEnv).toEqual({ GITHUB_TOKEN: ['trending', 'topics'], HUB_TOKEN: ['hub'] });
    expect(credentialWarnings(launch)).toHaveLength(2);
  });

  it('all set: nothing said, the launch record unchanged (no token value anywhere)', () => {
    const { launch, said } = check([{ type: 'topics', env: ['GITHUB_TOKEN'] }], {
      GITHUB_TOKEN: 'ghp_secret',
    });
    expect(said).toEqual([]);
    expect(launch).toBe(LAUNCH);
    expect(JSON.stringify(launch)).not.toContain('ghp_secret');
  });

  it('the GitHub sources name github.tokenEnv (default GITHUB_TOKEN)', () => {
    const options = (github: Record<string, unknown>) => {
      const parsed = githubSearchSource.options!.safeParse({ topics: ['llm'], github });
      if (!parsed.success) throw new Error('options refused');
      return parsed.data;
    };
    expect(githubSearchSource.credentialEnv?.(options({}))).toEqual(['GITHUB_TOKEN']);
    expect(githubSearchSource.credentialEnv?.(options({ tokenEnv: 'GHE_TOKEN' }))).toEqual(['GHE_TOKEN']);
  });
});
