/**
 * The undici dispatcher classes the fetcher uses, imported from their own modules rather than
 * from the package index. The index also loads fetch, WebSocket, cookies, caches, mocks and more
 * (a megabyte of source), and touches globals that make Node load its own bundled undici: about
 * 20 ms of every process start and 2 MB of an idle worker's heap, for code the crawler never
 * calls. The classes are the same objects the index exports (undici 7; `npm test` covers
 * plain, proxied and environment-proxied requests).
 */
import Agent from 'undici/lib/dispatcher/agent.js';
import EnvHttpProxyAgent from 'undici/lib/dispatcher/env-http-proxy-agent.js';
import ProxyAgent from 'undici/lib/dispatcher/proxy-agent.js';

export { Agent, EnvHttpProxyAgent, ProxyAgent };
