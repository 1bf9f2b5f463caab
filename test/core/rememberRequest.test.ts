import { describe, expect, it } from 'vitest';
import { rememberRequest } from '../../src/core/capture/rememberRequest';
import { DATE_LANGUAGES } from '../../src/core/base/localDates';

/** [message, what is saved] per language; every language the app reads dates in has both kinds. */
const SAVED: Record<(typeof DATE_LANGUAGES)[number], readonly (readonly [string, string])[]> = {
  en: [
    ["Remember that I'm vegetarian and allergic to peanuts.", "I'm vegetarian and allergic to peanuts"],
    ['please remember: my sister is Ana', 'My sister is Ana'],
    ["Don't forget that I moved to Lyon in March.", 'I moved to Lyon in March'],
    ['Keep in mind that I prefer metric units, please.', 'I prefer metric units'],
    ['From now on, remember that my manager is called Priya.', 'My manager is called Priya'],
    ["Remember I'm left-handed.", "I'm left-handed"],
    ['Oh, and remember, I work night shifts on weekends!', 'I work night shifts on weekends'],
    ["I'm training for the Berlin marathon, please remember that.", "I'm training for the Berlin marathon"],
    ['Hi! Remember that our wifi printer is on 192.168.1.40. Now, what should I cook tonight?', 'Our wifi printer is on 192.168.1.40'],
    ['Please remember the following:\n- I am vegetarian\n- my daughter is 7\n\nThanks!', 'I am vegetarian; my daughter is 7'],
  ],
  de: [
    ['Merk dir, dass ich Vegetarier bin.', 'Ich bin Vegetarier'],
    ['Bitte merk dir: Meine Schwester heißt Ana.', 'Meine Schwester heißt Ana'],
    ['Vergiss nicht, dass meine Schwester in Graz wohnt.', 'Meine Schwester wohnt in Graz'],
    ['Denk daran, dass ich keine Nüsse essen darf.', 'Ich darf keine Nüsse essen'],
  ],
  fr: [
    ['Souviens-toi que je suis végétarien.', 'Je suis végétarien'],
    ["N'oublie pas que j'ai une allergie aux arachides.", "J'ai une allergie aux arachides"],
    ["Retiens bien ceci : ma sœur s'appelle Ana.", "Ma sœur s'appelle Ana"],
    ["Rappelle-toi que je travaille de nuit, s'il te plaît.", 'Je travaille de nuit'],
  ],
  es: [
    ['Recuerda que soy vegetariano.', 'Soy vegetariano'],
    ['No olvides que mi hermana se llama Ana.', 'Mi hermana se llama Ana'],
    ['Por favor, recuerda: vivo en Valencia desde 2021.', 'Vivo en Valencia desde 2021'],
    ['Ten en cuenta que no como gluten.', 'No como gluten'],
  ],
  ja: [
    ['私はベジタリアンだということを覚えておいて。', '私はベジタリアンだ'],
    ['覚えておいてください：姉の名前はアナです。', '姉の名前はアナです'],
    ['ピーナッツアレルギーがあることを忘れないでね。', 'ピーナッツアレルギーがある'],
  ],
  zh: [
    ['记住：我是素食者。', '我是素食者'],
    ['请记住我对花生过敏。', '我对花生过敏'],
    ['我妹妹叫安娜，请记住。', '我妹妹叫安娜'],
    ['別忘了我住在台北。', '我住在台北'],
  ],
  ko: [
    ['기억해 줘: 나는 채식주의자야.', '나는 채식주의자야'],
    ['나는 채식주의자라는 걸 기억해 줘.', '나는 채식주의자'],
    ['땅콩 알레르기가 있다는 것을 기억해 주세요.', '땅콩 알레르기가 있다'],
    ['잊지 마: 내 여동생 이름은 아나야.', '내 여동생 이름은 아나야'],
  ],
};

/** Questions, recalled memories, reported speech, tasks and pasted text: nothing is saved. */
const NOT_SAVED: Record<(typeof DATE_LANGUAGES)[number], readonly string[]> = {
  en: [
    'Do you remember that I am vegetarian?',
    'What did I ask you to remember?',
    "I can't remember where I left my keys.",
    'Remember when we went to Rome? That pasta place was great.',
    'Remember when we went to Rome.',
    'remember that time we missed the train in Milan',
    'Remember my name.',
    'Remember that I said I was vegetarian?',
    'My teacher always said: remember that hard work pays off.',
    'Here is the README:\n```\nRemember that you must call init() first.\n```\nWhy does it crash?',
    '> Remember that the cache is per user.\nIs that true for shared accounts?',
    'How do I make my app remember that a user is logged in?',
  ],
  de: [
    'Erinnerst du dich, dass ich Vegetarier bin?',
    'Ich kann mich nicht erinnern, wo ich den Schlüssel hingelegt habe.',
    'Merk dir, wann wir in Rom waren?',
    'Vergiss nicht, den Müll rauszubringen.',
    'Weißt du noch, als wir in Rom waren?',
  ],
  fr: [
    'Tu te souviens que je suis végétarien ?',
    "Je ne me souviens pas où j'ai mis mes clés.",
    'Souviens-toi quand on est allés à Rome.',
    "N'oublie pas de prendre le pain.",
    // "Note que…" is how French technical prose says "note that": not a request to us.
    'Note que la fonction renvoie null si la liste est vide.',
  ],
  es: [
    '¿Recuerdas cuando fuimos a Roma?',
    'No recuerdo dónde dejé las llaves.',
    'Recuerda cuando fuimos a la playa.',
    '¿Recuerda que soy vegetariano?',
  ],
  ja: ['私がベジタリアンだって覚えていますか？', '鍵をどこに置いたか覚えていない。', 'これを覚えておいて。', '覚えてる？'],
  zh: ['你还记得我们去罗马吗？', '我不记得钥匙放在哪里了。', '记住了吗？', '好的，记住了。'],
  ko: ['우리 같이 로마에 갔던 거 기억해?', '열쇠를 어디에 뒀는지 기억이 안 나.', '내가 채식주의자라는 거 기억해요?'],
};

describe('rememberRequest', () => {
  for (const language of DATE_LANGUAGES) {
    describe(language, () => {
      it.each(SAVED[language])('saves %j', (message, what) => {
        expect(rememberRequest(message)).toEqual({ text: what, language });
      });
      it.each(NOT_SAVED[language])('saves nothing from %j', (message) => {
        expect(rememberRequest(message)).toBeNull();
      });
    });
  }

  it('reads a request inside a long, real-shaped turn (code block and table included), and only outside the code', () => {
    const table = '| dish | time |\n|---|---|\n| dal | 30 min |\n| risotto | 40 min |';
    const code = '```ts\n// remember that this runs twice\nconst x = 1;\n```';
    const prose = 'I have been cooking more this winter and want to plan the next two weeks of dinners. '.repeat(12);
    const message = `${prose}\n\n${table}\n\n${code}\n\nAlso, remember that I'm vegetarian and my partner doesn't eat mushrooms. Which of these fits?`;
    expect(message.length).toBeGreaterThan(1000);
    expect(rememberRequest(message)).toEqual({ text: "I'm vegetarian and my partner doesn't eat mushrooms", language: 'en' });
    expect(rememberRequest(`${prose}\n\n${table}\n\n${code}\n\nWhich of these fits?`)).toBeNull();
  });

  it('saves nothing from empty or non-text input', () => {
    expect(rememberRequest('')).toBeNull();
    expect(rememberRequest('   \n ')).toBeNull();
    expect(rememberRequest(undefined as unknown as string)).toBeNull();
    expect(rememberRequest('Remember:')).toBeNull();
  });
});
