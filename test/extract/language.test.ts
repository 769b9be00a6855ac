import { describe, expect, it } from 'vitest';
import {
  detectLanguage,
  LANGUAGE_DEFAULTS,
  normalizeLanguageTag,
  pageLanguage,
} from '../../src/extract/language.js';

// Paragraphs written for these tests, each a few hundred characters of ordinary prose.
const ENGLISH =
  'The city council met on Tuesday evening to discuss the new bus routes. Several residents said ' +
  'that the changes would make it harder for older people to reach the hospital, while others ' +
  'welcomed the more frequent service to the train station. The final decision was postponed ' +
  'until next month, when a revised plan will be presented.';
const FRENCH =
  "Le conseil municipal s'est réuni mardi soir pour discuter des nouvelles lignes de bus. " +
  'Plusieurs habitants ont déclaré que ces changements rendraient plus difficile l’accès à ' +
  "l'hôpital pour les personnes âgées, tandis que d'autres ont salué un service plus fréquent " +
  'vers la gare. La décision finale a été reportée au mois prochain.';
const GERMAN =
  'Der Stadtrat traf sich am Dienstagabend, um über die neuen Buslinien zu beraten. Mehrere ' +
  'Anwohner sagten, dass die Änderungen es älteren Menschen schwerer machen würden, das ' +
  'Krankenhaus zu erreichen, während andere den häufigeren Takt zum Bahnhof begrüßten. Die ' +
  'endgültige Entscheidung wurde auf den nächsten Monat verschoben.';
const JAPANESE =
  '市議会は火曜日の夜に新しいバス路線について話し合いました。何人かの住民は、この変更によって' +
  'お年寄りが病院に行くのが難しくなると述べましたが、駅までの便が増えることを歓迎する人もいました。' +
  '最終的な決定は来月まで延期され、その時に修正された計画が示される予定です。';
const NORWEGIAN =
  'Bystyret møttes tirsdag kveld for å diskutere de nye bussrutene. Flere innbyggere sa at ' +
  'endringene ville gjøre det vanskeligere for eldre å komme seg til sykehuset, mens andre ' +
  'ønsket det hyppigere tilbudet til jernbanestasjonen velkommen. Den endelige avgjørelsen ble ' +
  'utsatt til neste måned.';
const SPANISH =
  'El ayuntamiento se reunió el martes por la noche para hablar de las nuevas líneas de autobús. ' +
  'Varios vecinos dijeron que los cambios harían más difícil que las personas mayores llegaran al ' +
  'hospital, mientras que otros celebraron un servicio más frecuente hacia la estación de tren. ' +
  'La decisión final se aplazó hasta el próximo mes.';

describe('normalizeLanguageTag', () => {
  it.each([
    ['en', 'en'],
    ['EN', 'en'],
    ['en_US', 'en-US'],
    ['en-us', 'en-US'],
    [' EN-gb ', 'en-GB'],
    ['zh-hant-tw', 'zh-Hant-TW'],
    ['sr-latn-rs', 'sr-Latn-RS'],
    ['es-419', 'es-419'],
    ['de-DE-1996', 'de-DE-1996'],
    ['en_US.UTF-8', 'en-US'],
    ['iw', 'he'], // deprecated codes replaced
    ['in', 'id'],
  ])('%j → %j', (tag, expected) => {
    expect(normalizeLanguageTag(tag)).toBe(expected);
  });

  it.each([
    [''],
    ['  '],
    ['*'],
    ['{{ lang }}'],
    ['en-'],
    ['english'],
    ['x-foo'],
    ['i-klingon'],
    ['und'],
    ['a'],
    [`en-US-${'x'.repeat(LANGUAGE_DEFAULTS.maxTagChars)}`],
  ])('%j is not a language tag', (tag) => {
    expect(normalizeLanguageTag(tag)).toBeNull();
  });

  it('null and undefined are no tag', () => {
    expect(normalizeLanguageTag(null)).toBeNull();
    expect(normalizeLanguageTag(undefined)).toBeNull();
  });
});

describe('detectLanguage', () => {
  it.each([
    ['English', ENGLISH, 'en'],
    ['French', FRENCH, 'fr'],
    ['German', GERMAN, 'de'],
    ['Japanese', JAPANESE, 'ja'],
    ['Spanish', SPANISH, 'es'],
  ])('%s', (_name, text, expected) => {
    expect(detectLanguage(text)).toBe(expected);
  });

  it('short text is not identified', () => {
    const short = 'Le conseil municipal a voté.';
    expect(short.length).toBeLessThan(LANGUAGE_DEFAULTS.minDetectChars);
    expect(detectLanguage(short)).toBeNull();
    expect(detectLanguage('')).toBeNull();
    // whitespace does not count toward the minimum
    expect(detectLanguage(`${'   \n'.repeat(40)}Le conseil municipal a voté.`)).toBeNull();
  });

  it('text without language is not identified', () => {
    expect(detectLanguage('12345 67890 '.repeat(20))).toBeNull();
    expect(detectLanguage('— · — · — · '.repeat(20))).toBeNull();
  });

  it('a long text is judged on its start, middle and end, not on its first 500 characters', () => {
    // an English notice of ~1,300 characters, then French prose: the first sample is the notice
    const notice = `${ENGLISH} ${ENGLISH} ${ENGLISH} ${ENGLISH}`;
    const text = `${notice} ${FRENCH} ${FRENCH} ${FRENCH} ${FRENCH} ${FRENCH} ${FRENCH} ${FRENCH}`;
    expect(notice.length).toBeGreaterThan(LANGUAGE_DEFAULTS.sampleChars);
    expect(detectLanguage(text)).toBe('fr');
  });

  it('a text split between two languages is not identified', () => {
    const english = `${ENGLISH} ${ENGLISH} ${ENGLISH} ${ENGLISH}`.slice(
      0,
      LANGUAGE_DEFAULTS.sampleChars - 10,
    );
    const german = `${GERMAN} ${GERMAN} ${GERMAN} ${GERMAN}`.slice(0, LANGUAGE_DEFAULTS.sampleChars - 10);
    // two samples, the first samples and the last disagree: no majority
    expect(detectLanguage(english)).toBe('en');
    expect(detectLanguage(german)).toBe('de');
    expect(detectLanguage(`${english} ${german}`)).toBeNull();
  });
});

describe('pageLanguage', () => {
  it('the declaration wins, in full and normalised', () => {
    expect(pageLanguage('en_GB', ENGLISH)).toBe('en-GB');
    expect(pageLanguage('fr-CA', FRENCH)).toBe('fr-CA');
    // a template's lang="en" on a French page is what the page says: the text does not overrule it
    expect(pageLanguage('en', FRENCH)).toBe('en');
  });

  it('without a usable declaration, the text is identified', () => {
    expect(pageLanguage(null, GERMAN)).toBe('de');
    expect(pageLanguage('{{lang}}', GERMAN)).toBe('de');
    expect(pageLanguage(null, NORWEGIAN)).toBe('nb');
    expect(pageLanguage(null, 'Guten Tag')).toBeNull();
    expect(pageLanguage('', '')).toBeNull();
  });
});
