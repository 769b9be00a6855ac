/** Session-id removal (Heritrix StripSessionIDs / StripSessionCFIDs rules, by parameter name). */
import { describe, expect, it } from 'vitest';
import { SessionIdStripper } from '../../src/url/session-ids.js';

const s = new SessionIdStripper();
const TOKEN = '999A9EF028317A82AC83F0FDFE59385A';

describe('SessionIdStripper', () => {
  it('removes jsessionid path parameters', () => {
    expect(s.strip(`http://h/app/page.jsp;jsessionid=${TOKEN}`)).toBe('http://h/app/page.jsp');
    expect(s.strip(`http://h/app/page.jsp;JSESSIONID=${TOKEN}?x=1`)).toBe('http://h/app/page.jsp?x=1');
    expect(s.strip(`http://h/a;jsessionid=1.node0/b;v=2`)).toBe('http://h/a/b;v=2');
  });

  it('removes session-id query parameters, keeping the others in order', () => {
    expect(s.strip(`http://h/p?a=1&jsessionid=${TOKEN}&b=2`)).toBe('http://h/p?a=1&b=2');
    expect(s.strip('http://h/p?PHPSESSID=9682993c8daa2c5497996114facdc805')).toBe('http://h/p');
    expect(s.strip('http://h/p?x=1&sessionid=abc&session_id=d')).toBe('http://h/p?x=1');
    expect(s.strip('http://h/p?ASPSESSIONIDAQBSDSRT=EOHBLBDDPFCLHKPGGKLILNAM&page=2')).toBe(
      'http://h/p?page=2',
    );
    expect(s.strip('http://h/p?CFID=123&CFTOKEN=ab-cd&q=1')).toBe('http://h/p?q=1');
  });

  it('takes sid only with a session-like token', () => {
    expect(s.strip('http://h/p?sid=9682993c8daa2c5497996114facdc805&q=1')).toBe('http://h/p?q=1');
    expect(s.strip('http://h/p?sid=42&q=1')).toBe('http://h/p?sid=42&q=1');
  });

  it('removes ASP.NET cookieless session segments', () => {
    expect(s.strip('http://h/(S(lit3py55t21z5v55vlm25s55))/default.aspx')).toBe('http://h/default.aspx');
    expect(s.strip('http://h/(X(1)S(lit3py55t21z5v55vlm25s55))/')).toBe('http://h/');
  });

  it('returns the same string when there is nothing to remove', () => {
    const u = 'http://h/a;b=c/d?page=2&sort=asc';
    expect(s.strip(u)).toBe(u);
    expect(s.strip('http://h/')).toBe('http://h/');
    expect(s.strip('http://h/p?sessionx=1')).toBe('http://h/p?sessionx=1');
  });

  it('keeps the parameters named in keep', () => {
    const keep = new SessionIdStripper(['SID', 'phpsessid']);
    expect(keep.strip(`http://h/p?sid=${TOKEN}&PHPSESSID=1&jsessionid=2`)).toBe(
      `http://h/p?sid=${TOKEN}&PHPSESSID=1`,
    );
    expect(new SessionIdStripper(['aspsessionid']).strip('http://h/p?ASPSESSIONIDAQBSDSRT=X')).toBe(
      'http://h/p?ASPSESSIONIDAQBSDSRT=X',
    );
  });

  it('removes tracking parameters (utm_*, fbclid, gclid, mc_cid, ...), keeping the others in order', () => {
    expect(
      s.strip('http://h/post?id=7&utm_source=news&UTM_Medium=email&utm_campaign=c9&fbclid=IwAR1x&page=2'),
    ).toBe('http://h/post?id=7&page=2');
    expect(s.strip('http://h/p?gclid=G1&mc_cid=a1&mc_eid=b2&_hsenc=x&msclkid=m&ref_src=twsrc')).toBe(
      'http://h/p',
    );
    // ref alone is not a tracking parameter (a branch on GitHub, a section elsewhere)
    expect(s.strip('http://h/p?ref=main')).toBe('http://h/p?ref=main');
    expect(s.strip('http://h/p?utm=1&fbclidx=2')).toBe('http://h/p?utm=1&fbclidx=2');
  });

  it('takes more tracking parameters from config, and keeps those named in keep', () => {
    const more = new SessionIdStripper([], ['ref', 'src_*']);
    expect(more.strip('http://h/p?ref=feed&src_a=1&SRC_B=2&q=1')).toBe('http://h/p?q=1');
    const keepOne = new SessionIdStripper(['utm_campaign']);
    expect(keepOne.strip('http://h/p?utm_source=a&utm_campaign=b')).toBe('http://h/p?utm_campaign=b');
    const keepAll = new SessionIdStripper(['utm_*', 'FBCLID']);
    expect(keepAll.strip('http://h/p?utm_source=a&utm_campaign=b&fbclid=c&gclid=d')).toBe(
      'http://h/p?utm_source=a&utm_campaign=b&fbclid=c',
    );
  });
});
