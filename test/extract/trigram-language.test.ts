import { francAll } from 'franc';
import { data } from 'franc/data.js';
import { describe, expect, it } from 'vitest';
import { CANDIDATE_LANGUAGES } from '../../src/extract/language.js';
import { trigramIdentifier } from '../../src/extract/trigram-language.js';

const ONLY = Object.keys(CANDIDATE_LANGUAGES);

/** franc's own answer, `und` as null. */
function franc(text: string, only: string[]): string | null {
  const [[best]] = francAll(text, { only, minLength: 1 });
  return best === 'und' ? null : best;
}

// Prose written for these tests, in the scripts franc tells apart by trigrams and by script alone.
const PROSE = [
  'The city council met on Tuesday evening to discuss the new bus routes; several residents said ' +
    'the changes would make it harder for older people to reach the hospital.',
  "Le conseil municipal s'est réuni mardi soir pour discuter des nouvelles lignes de bus, et la " +
    'décision finale a été reportée au mois prochain.',
  'Der Stadtrat traf sich am Dienstagabend, um über die neuen Buslinien zu beraten (2024: 3 Linien).',
  'Bystyret møttes tirsdag kveld for å diskutere de nye bussrutene.',
  'Городской совет собрался во вторник вечером, чтобы обсудить новые автобусные маршруты.',
  'Η δημοτική επιτροπή συνεδρίασε την Τρίτη το βράδυ για τις νέες γραμμές λεωφορείων.',
  'המועצה העירונית התכנסה ביום שלישי בערב כדי לדון בקווי האוטובוס החדשים.',
  'اجتمع المجلس البلدي مساء الثلاثاء لمناقشة خطوط الحافلات الجديدة.',
  'नगर परिषद ने मंगलवार शाम नई बस लाइनों पर चर्चा करने के लिए बैठक की।',
  '市議会は火曜日の夜に新しいバス路線について話し合いました。',
  '市议会星期二晚上开会讨论新的公交线路。',
  '시의회는 화요일 저녁에 새로운 버스 노선을 논의했습니다.',
  'สภาเมืองประชุมกันเมื่อคืนวันอังคารเพื่อหารือเกี่ยวกับเส้นทางรถเมล์ใหม่',
  'ქალაქის საბჭო სამშაბათს საღამოს შეიკრიბა.',
  'Քաղաքային խորհուրդը հավաքվեց երեքշաբթի երեկոյան։',
  'English words, русские слова и ελληνικά μαζί — 123 %$# mixed.',
  'Outside the basic plane 😀 the counting is franc’s own: 𝐛𝐨𝐥𝐝 𝐰𝐨𝐫𝐝𝐬 and 𠀀𠀁 ideographs.',
];

describe('trigramIdentifier', () => {
  const identifier = trigramIdentifier(ONLY);

  it("answers franc's best language for prose in many scripts, whole and in every window", () => {
    let compared = 0;
    for (const text of PROSE) {
      for (const size of [3, 11, 40, 500])
        for (let i = 0; i < text.length; i += 7) {
          const sample = text.slice(i, i + size);
          expect(identifier.identify(sample), sample).toBe(franc(sample, ONLY));
          compared++;
        }
    }
    expect(compared).toBeGreaterThan(500);
  });

  it("answers franc's best language for text made of each language's own model trigrams", () => {
    // every model franc has, of every script: the candidates' own profiles, and their neighbours'
    for (const models of Object.values(data))
      for (const model of Object.values(models)) {
        const trigrams = model.split('|');
        for (const text of [trigrams.slice(0, 60).join(' '), trigrams.slice(150, 200).join('')])
          expect(identifier.identify(text), text.slice(0, 40)).toBe(franc(text, ONLY));
      }
  });

  it('answers none where franc answers und: empty, no letters, a script of no candidate', () => {
    for (const text of ['', ' ', '12345 !!!', '-- ** --']) {
      expect(franc(text, ONLY)).toBeNull();
      expect(identifier.identify(text)).toBeNull();
    }
    const khmer = 'ក្រុមប្រឹក្សាក្រុងបានជួបប្រជុំ';
    expect(franc(khmer, ONLY)).toBeNull();
    expect(identifier.identify(khmer)).toBeNull();
  });

  it('keeps to its candidates, as franc with `only` does', () => {
    const few = ['eng', 'fra'];
    const small = trigramIdentifier(few);
    for (const text of PROSE) expect(small.identify(text), text).toBe(franc(text, few));
    expect(few).toContain(small.identify(PROSE[2]));
  });
});
