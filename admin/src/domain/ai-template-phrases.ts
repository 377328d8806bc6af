import type { HOOK_TYPES } from '@adnet/schemas/ai';

type Hook = (typeof HOOK_TYPES)[number];
/** [title, body]; `{o}` is the offer and `{c}` the call to action, both as the advertiser wrote them. */
export type Phrases = Record<Hook, readonly [string, string]>;

// Written so that the offer and call to action are quoted, not declined or
// conjugated, which keeps every language correct whatever the advertiser types.
export const TEMPLATE_PHRASES: Readonly<Record<string, Phrases>> = {
  en: {
    fear: ["Don't miss out: {o}", 'Others already have {o}. {c} before it is gone.'],
    curiosity: ['The secret behind {o}', 'Find out why everyone talks about {o}. {c}.'],
    urgency: ['Today only: {o}', '{o} is waiting, but not for long. {c} now.'],
    benefit: ['Get more with {o}', '{o}: made to make your day easier. {c}.'],
    social_proof: ['Thousands chose {o}', 'Join the people who picked {o}. {c}.'],
    scarcity: ['Limited: {o}', 'Only a few left of {o}. {c} while you can.'],
    question: ['Ready for {o}?', 'What would {o} change for you? {c} and see.'],
    story: ['How {o} changed it all', 'It started with one click on {o}. {c}.'],
  },
  de: {
    fear: ['Nicht verpassen: {o}', 'Andere haben {o} schon. {c}, bevor es weg ist.'],
    curiosity: ['Das Geheimnis von {o}', 'Finde heraus, warum alle über {o} reden. {c}.'],
    urgency: ['Nur heute: {o}', '{o} wartet, aber nicht lange. {c}!'],
    benefit: ['Mehr vom Leben mit {o}', '{o} macht deinen Alltag leichter. {c}.'],
    social_proof: ['Tausende wählen {o}', 'Mach es wie viele andere und wähle {o}. {c}.'],
    scarcity: ['Begrenzt: {o}', 'Nur noch wenige verfügbar: {o}. {c}, solange es geht.'],
    question: ['Bereit für {o}?', 'Was würde {o} für dich ändern? {c} und sieh selbst.'],
    story: ['Wie {o} alles verändert hat', 'Es begann mit einem Klick auf {o}. {c}.'],
  },
  es: {
    fear: ['No te lo pierdas: {o}', 'Otros ya tienen {o}. {c} antes de que se acabe.'],
    curiosity: ['El secreto de {o}', 'Descubre por qué todos hablan de {o}. {c}.'],
    urgency: ['Solo hoy: {o}', '{o} te espera, pero no por mucho. {c} ya.'],
    benefit: ['Consigue más con {o}', '{o}: hecho para facilitarte el día. {c}.'],
    social_proof: ['Miles eligen {o}', 'Únete a quienes ya eligieron {o}. {c}.'],
    scarcity: ['Limitado: {o}', 'Quedan pocas unidades de {o}. {c} mientras puedas.'],
    question: ['¿Listo para {o}?', '¿Qué cambiaría {o} para ti? {c} y compruébalo.'],
    story: ['Cómo {o} lo cambió todo', 'Todo empezó con un clic en {o}. {c}.'],
  },
  fr: {
    fear: ['À ne pas manquer : {o}', "D'autres ont déjà {o}. {c} avant qu'il ne soit trop tard."],
    curiosity: ['Le secret de {o}', 'Découvrez pourquoi tout le monde parle de {o}. {c}.'],
    urgency: ["Aujourd'hui seulement : {o}", '{o} vous attend, mais pas longtemps. {c} maintenant.'],
    benefit: ['Profitez de plus avec {o}', '{o} : fait pour vous simplifier la vie. {c}.'],
    social_proof: ['Des milliers choisissent {o}', 'Rejoignez ceux qui ont choisi {o}. {c}.'],
    scarcity: ['Offre limitée : {o}', "Plus que quelques-uns : {o}. {c} tant qu'il en reste."],
    question: ['Prêt pour {o} ?', 'Que changerait {o} pour vous ? {c} et voyez.'],
    story: ['Comment {o} a tout changé', 'Tout a commencé par un clic sur {o}. {c}.'],
  },
  pt: {
    fear: ['Não perca: {o}', 'Outros já têm {o}. {c} antes que acabe.'],
    curiosity: ['O segredo de {o}', 'Descubra por que todos falam de {o}. {c}.'],
    urgency: ['Só hoje: {o}', '{o} está à sua espera, mas não por muito tempo. {c} já.'],
    benefit: ['Ganhe mais com {o}', '{o}: feito para facilitar o seu dia. {c}.'],
    social_proof: ['Milhares escolhem {o}', 'Junte-se a quem já escolheu {o}. {c}.'],
    scarcity: ['Limitado: {o}', 'Restam poucas unidades: {o}. {c} enquanto pode.'],
    question: ['Pronto para {o}?', 'O que {o} mudaria para você? {c} e veja.'],
    story: ['Como {o} mudou tudo', 'Tudo começou com um clique em {o}. {c}.'],
  },
  it: {
    fear: ['Non perderlo: {o}', 'Altri hanno già {o}. {c} prima che finisca.'],
    curiosity: ['Il segreto di {o}', 'Scopri perché tutti parlano di {o}. {c}.'],
    urgency: ['Solo oggi: {o}', '{o} ti aspetta, ma non a lungo. {c} ora.'],
    benefit: ['Ottieni di più con {o}', '{o}: pensato per semplificarti la giornata. {c}.'],
    social_proof: ['Migliaia scelgono {o}', 'Unisciti a chi ha già scelto {o}. {c}.'],
    scarcity: ['Limitato: {o}', 'Ne restano pochi: {o}. {c} finché puoi.'],
    question: ['Pronto per {o}?', 'Cosa cambierebbe {o} per te? {c} e scoprilo.'],
    story: ['Come {o} ha cambiato tutto', 'Tutto è iniziato con un clic su {o}. {c}.'],
  },
  ru: {
    fear: ['Не упустите: {o}', 'Другие уже выбрали: {o}. {c}, пока не поздно.'],
    curiosity: ['В чём секрет? {o}', 'Все говорят об этом: {o}. {c}.'],
    urgency: ['Только сегодня: {o}', 'Предложение действует недолго: {o}. {c}.'],
    benefit: ['Больше пользы: {o}', 'Чтобы вам было проще: {o}. {c}.'],
    social_proof: ['Выбор тысяч: {o}', 'Тысячи людей уже выбрали: {o}. {c}.'],
    scarcity: ['Осталось мало: {o}', 'Количество ограничено: {o}. {c}, пока есть.'],
    question: ['Готовы? {o}', 'Что изменится для вас? {o}. {c} и убедитесь.'],
    story: ['Как всё изменилось: {o}', 'Всё началось с одного клика: {o}. {c}.'],
  },
};

/** The phrases for `lang`, or English when the template has none for it. */
export function phrasesFor(lang: string): { lang: string; phrases: Phrases } {
  const own = TEMPLATE_PHRASES[lang];
  return own ? { lang, phrases: own } : { lang: 'en', phrases: TEMPLATE_PHRASES.en as Phrases };
}
