/**
 * The English rules of query analysis (src/memory/query-analysis.ts): what a question's words
 * say about what it asks, and which words only frame it. Each rule's counterpart is in
 * query-rules-zh.ts. Framing rules apply in this order.
 */
import type { QueryRule } from "./query-analysis.ts";

export const QUERY_RULES_EN: readonly QueryRule[] = [
  {
    name: "en.quantity",
    does: "asksQuantity",
    pattern: /\bhow\s+(?:many|much|long|often|old|far)\b|\btotal\b|\bnumber\s+of\b/i,
    means: "how many / how much / how long / how often / how old / how far, total, number of",
    why: "A question for a number is answered by a turn that states one ('I spent around 70 hours …').",
    measured:
      "Off: LongMemEval user turns R@5 .881 → .855 (R@10 .931 → .920), all turns R@5 .864 → .838 " +
      "(R@10 .931 → .930); LoCoMo R@10 .697 → .691; chat unchanged.",
    counterpart: "zh.quantity",
  },
  {
    name: "en.measure",
    does: "asksMeasure",
    pattern:
      /\bhow\s+(?:much|long|often|old|far)\b|\bhow\s+many\s+(?:[\w-]+\s+)?(?:hours?|days?|weeks?|months?|years?|minutes?|seconds?|times|miles?|kilometers?|km|pounds?|kilos?|kilograms?|dollars?|euros?|percent|pages?|steps?|calories|points?)\b|\btotal\b/i,
    means: "how much / long / often / old / far, how many + a unit (hours, dollars, …), total",
    why:
      "A measure is a number someone said, so a turn stating one counts more than for a count of " +
      "things: 'How many babies were born …' is answered by 'David had a baby boy', which states none.",
    measured:
      "Off: LongMemEval user turns R@5 .881 → .868, all turns R@5 .864 → .857 (R@10 .931 → .934); " +
      "LoCoMo R@10 .697 → .695; chat unchanged.",
    counterpart: "zh.measure",
  },
  {
    name: "en.time-between",
    does: "asksTimeBetween",
    pattern:
      /\bhow\s+many\s+(?:days|weeks|months|years)\b(?:\s+\w+){0,2}\s+(?:before|after|ago|between|since|passed|earlier|later)\b|\bhow\s+long\s+ago\b|\bhow\s+long\s+(?:had|has)\s+it\s+been\b/i,
    means: "how many days … before / after / since, how long ago, how long has it been",
    why:
      "The time between two things is answered from when each was said, not from a number said: " +
      "it weighs a number as a count does, not as a measure.",
    measured: "Off: LongMemEval all turns R@5 .864 → .859; LoCoMo unchanged; chat unchanged.",
    counterpart: "zh.time-between",
  },
  {
    name: "en.present-state",
    does: "asksPresentState",
    pattern: /\b(?:currently|now|these\s+days|nowadays|still|at\s+the\s+moment|so\s+far|most\s+recent(?:ly)?)\b/i,
    means: "currently, now, these days, nowadays, still, at the moment, so far, most recent(ly)",
    why:
      "What someone says now replaces what they said before ('I do yoga every morning', months later " +
      "'switched to swimming'): the newer of the matching turns answers. 'the current job' and " +
      "'from earliest to latest' ask for no present state.",
    measured: "Off: LongMemEval unchanged; LoCoMo unchanged; chat EN R@10 .819 → .815 (R@5 .590 → .586).",
    counterpart: "zh.present-state",
  },
  {
    name: "en.to-assistant",
    does: "addressesAssistant",
    reads: "unframed",
    pattern: /\byou(?:r|rs|rself)?\b/i,
    means: "you, your, yours, yourself",
    why:
      "A question to the assistant may be about its own turns; one that is not is answered by what " +
      "the person said. Read after framing: 'Can you suggest …' only frames a request (en.advice-request).",
    measured:
      "Off: LongMemEval all turns R@5 .864 → .855; LoCoMo unchanged; chat unchanged. Only " +
      "LongMemEval's all-turns set has a speaker named assistant.",
    counterpart: "zh.to-assistant",
  },
  {
    name: "en.assistant-said",
    does: "asksWhatAssistantSaid",
    pattern:
      /\byou\s+(?:said|told|mentioned|provided|recommended|suggested|gave|listed|shared|described|explained)\b|\bdid\s+you\s+(?:say|tell|mention|recommend|suggest|give|list|provide)\b/i,
    means: "you said / told / mentioned / recommended …, did you say / tell / suggest …",
    why: "A question about what the assistant said ('the list you provided') is answered by the assistant's turns.",
    measured:
      "Off: LongMemEval all turns R@5 .864 → .847 (R@10 .931 → .939); LoCoMo unchanged; chat " +
      "unchanged. Only LongMemEval's all-turns set has a speaker named assistant; R@10 gains " +
      "without it, R@5 loses more.",
    counterpart: "zh.assistant-said",
  },
  {
    name: "en.first-person",
    does: "firstPerson",
    pattern: /\b(?:i|me|my|mine|myself)\b/i,
    means: "I, me, my, mine, myself",
    why: "A question in the person's own voice ('What did I buy …') is answered by what the person said.",
    measured:
      "Off: LongMemEval unchanged; LoCoMo unchanged; chat unchanged. Every first-person question of " +
      "the sets is also a question (en.question finds it); this one acts on a statement ('I need a " +
      "gift for my sister.').",
    counterpart: "zh.first-person",
  },
  {
    name: "en.question",
    does: "isQuestion",
    pattern: /\?|^\s*(?:what|when|where|which|who|whose|why|how)\b/i,
    means: "a question mark, or a question word first",
    why:
      "A question, whoever it is about ('How many babies were born to friends …?'), is answered by " +
      "what people said; a request ('Continue the story.') is about the assistant's own turns.",
    measured:
      "Off: LongMemEval all turns R@5 .864 → .857 (R@10 .931 → .925); LoCoMo unchanged; chat " +
      "unchanged. Only LongMemEval's all-turns set has a speaker named assistant.",
    counterpart: "zh.question",
  },
  {
    name: "en.present-phrase",
    does: "frame",
    pattern: /\b(?:these\s+days|nowadays|at\s+the\s+moment|so\s+far)\b/gi,
    means: "these days, nowadays, at the moment, so far: now",
    why:
      "They place the question in time, as 'two weeks ago' does (time.ts withoutTimePhrases); " +
      "'these days' would otherwise look for turns that say 'day'. 'currently', 'still' also name " +
      "what is asked ('currently keep') and stay.",
    measured: "Off: LongMemEval unchanged; LoCoMo unchanged; chat EN R@10 .819 → .811 (R@5 .590 → .569).",
    counterpart: "zh.present-phrase",
  },
  {
    name: "en.before-now",
    does: "frame",
    pattern: /\b(?:earlier|lately|recently|previously)\b/gi,
    means: "earlier, lately, recently, previously: before now",
    why: "They place the question in time too; another turn that happens to say 'earlier' is not what it asks about.",
    measured: "Off: LongMemEval all turns R@5 .864 → .855 (R@10 .931 → .923); LoCoMo unchanged; chat " + "unchanged.",
    counterpart: "zh.before-now",
  },
  {
    name: "en.recalling",
    does: "frame",
    pattern:
      /\b(?:i|i[’']ve|i\s+have|i\s+had)\s+(?:mentioned|said|told\s+you)\b|\bi\s+remember\b|\bwe\s+(?:talked|discussed|chatted)\s+about\b/gi,
    means: "I mentioned / said / told you, I remember, we talked / discussed / chatted about: this was said before",
    why:
      "They say the question is about something said before, as 'earlier' does, and everything in " +
      "memory was said before: 'I mentioned cooking something for my friend …' is about cooking, and " +
      "the turns that say 'you mentioned' are not what it asks about. 'What did you say …' stays " +
      "(en.assistant-said reads it), and so does 'We discussed jobs …' without 'about'.",
    measured:
      "Off: LongMemEval user turns R@5 .898 → .888 (one question, 'I mentioned cooking something for " +
      "my friend a couple of days ago'), all turns unchanged; LoCoMo unchanged; chat unchanged. The " +
      "references to the conversation itself ('our previous conversation about', 'can you remind " +
      "me of', 'I was looking back at') framed too moved no R@5 or R@10 and cost all turns nDCG@10 " +
      ".801 → .788: left out.",
    counterpart: "zh.recalling",
  },
  {
    name: "en.advice-request",
    does: "frame",
    alsoFinds: "asksAdvice",
    pattern:
      /\b(?:can|could|would)\s+you\s+(?:suggest|recommend)\b|\bany\s+(?:tips|suggestions|recommendations|ideas|advice)\b/gi,
    means: "can / could / would you suggest / recommend, any tips / suggestions / ideas / advice",
    why:
      "It says how the question is asked, not what it is about, and a person's messages to an " +
      "assistant are full of it. 'Which book did Tom recommend?' asks about a recommendation and keeps its word.",
    measured:
      "Off: LongMemEval user turns R@5 .881 → .876, all turns R@5 .864 → .851 (R@10 .931 → .910); " +
      "LoCoMo unchanged; chat unchanged.",
    counterpart: "zh.advice-request",
  },
  {
    name: "en.hedge",
    does: "frame",
    pattern:
      /\b(?:i[’']?m|i\s+am|i[’']?ve\s+been|i\s+was)\s+(?:looking\s+for|trying\s+to|thinking\s+(?:of|about)|wondering|not\s+sure|having\s+trouble(?:\s+with)?)\b|\bnot\s+sure\b|\bwhich\s+one\s+to\s+choose\b/gi,
    means:
      "I'm looking for / trying to / thinking about / wondering / having trouble with, not sure, which one to choose",
    why:
      "The person's hedges around what they ask: another message's 'I'm not sure which one to choose' " +
      "is not what this one is about. The verbs only after 'I': 'What is Caroline thinking about " +
      "doing next?' keeps its words.",
    measured:
      "Off: LongMemEval user turns R@5 .881 → .871, all turns R@5 = (R@10 .931 → .923); LoCoMo " +
      "unchanged; chat unchanged.",
    counterpart: "zh.hedge",
  },
  {
    name: "en.kinds-of",
    does: "frame",
    pattern: /\b(?:different\s+)?(?:types|kinds|sorts)\s+of\b/gi,
    means: "(different) types / kinds / sorts of",
    why:
      "The question asks for members of the kind the next words name ('How many different types of " +
      "citrus fruits …'); another turn's 'different types of plant-based milk' is not one of them.",
    measured: "Off: LongMemEval user turns R@5 = (R@10 .931 → .929); LoCoMo R@10 .697 → .696; chat " + "unchanged.",
    counterpart: "zh.kinds-of",
  },
  {
    name: "en.quantity-form",
    does: "frame",
    pattern: /\bhow\s+(?:many|much|long|often|old|far)\b/gi,
    means: "how many / much / long / often / old / far",
    why:
      "The question's form (en.quantity reads it from the whole question), not its topic: a turn " +
      "saying 'so many people' is not about it.",
    measured:
      "Off: LongMemEval user turns R@5 .881 → .876, all turns R@5 .864 → .859 (R@10 .931 → .935); " +
      "LoCoMo R@10 .697 → .700; chat unchanged. LoCoMo gains a little without it; LongMemEval loses " +
      "more.",
    counterpart: "zh.quantity-form",
  },
];
