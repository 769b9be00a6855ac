import { describe, expect, it } from 'vitest';
import { parseOptionPairs } from '../../src/config/option-pairs.js';

describe('--source-option key=value', () => {
  it('reads values as a config file would (numbers, booleans, lists), keys in camelCase', () => {
    expect(
      parseOptionPairs([
        'api=http://127.0.0.1:8080/v0',
        'per-page=5',
        'deep=true',
        'topics=[a, b]',
        'empty=',
        'n=1',
        'n=2',
        'q=a=b',
      ]),
    ).toEqual({
      api: 'http://127.0.0.1:8080/v0',
      perPage: 5,
      deep: true,
      topics: ['a', 'b'],
      empty: '',
      n: 2,
      q: 'a=b',
    });
  });

  it('keeps text that YAML would make a map or null as it is', () => {
    expect(parseOptionPairs(['a=k: v', 'b=~', 'c={x'])).toEqual({ a: 'k: v', b: '~', c: '{x' });
  });

  it('a dotted key sets a key of an object option (github.api=URL)', () => {
    expect(
      parseOptionPairs(['github.api=http://127.0.0.1:1/api/v3', 'github.token-env=MY_TOKEN', 'n=1']),
    ).toEqual({ github: { api: 'http://127.0.0.1:1/api/v3', tokenEnv: 'MY_TOKEN' }, n: 1 });
    expect(() => parseOptionPairs(['a..b=1'])).toThrow('--source-option "a..b=1": bad key');
    expect(() => parseOptionPairs(['__proto__.x=1'])).toThrow(/bad key/);
  });

  it('refuses a pair without a key', () => {
    expect(() => parseOptionPairs(['=5'])).toThrow('--source-option "=5": expected key=value');
    expect(() => parseOptionPairs(['flag'])).toThrow('--source-option "flag": expected key=value');
  });
});
