// Vocabulary for the filler generator: plain English so tokenizers see ordinary text (about 4 chars/token).
export const ADJECTIVES =
  `quiet old bright narrow distant gentle heavy curious small ancient golden silent crowded careful
hidden patient broken green frozen warm early late wooden tired busy hollow steady pale rough smooth
wide deep shallow crooked honest nervous proud simple strange sudden tiny vast wild calm clever dusty
empty faint fresh gray humble little lonely loud modest noble plain rapid rare restless rusty shy`.split(
    /\s+/,
  );

export const NOUNS =
  `village river merchant garden window letter mountain harbor teacher bridge lantern market
forest kitchen station library soldier painter engine island orchard valley farmer captain traveler
sailor workshop tower meadow clock road field storm winter summer morning evening house door wall
street child friend doctor baker singer stranger neighbor horse dog bird boat train ship wagon barn
well fountain church school castle cottage hill lake pond shore path gate fence roof stair candle map
journal coat basket cart wheel hammer rope ladder bell drum song story promise secret question answer`.split(
    /\s+/,
  );

export const VERBS = `watched carried followed opened painted repaired visited crossed remembered described
noticed gathered explained measured counted finished borrowed delivered discovered mended cleaned
studied guarded answered collected built planted reached lifted pulled pushed shared traded wrote read
signed sorted folded packed returned welcomed warned thanked greeted questioned`.split(/\s+/);

export const ADVERBS = `slowly carefully quietly suddenly often rarely gladly barely nearly openly patiently
eagerly calmly softly firmly gently briefly kindly loudly proudly`.split(/\s+/);

export const PREPOSITIONS =
  `near beside behind across beyond under over along around through toward past`.split(/\s+/);

export const CONNECTORS = [
  'Meanwhile,',
  'Later that day,',
  'In the morning,',
  'After a while,',
  'Before long,',
  'At the same time,',
  'Years later,',
  'By evening,',
  'For a moment,',
  'Even so,',
  'Without a word,',
  'As the light faded,',
];

export const NAMES = `Ada Bruno Clara Dmitri Elena Farid Greta Hugo Ines Jonas Kira Luca Mira Nils Olga Pavel
Quinn Rosa Sami Tomas Uma Viktor Wren Yara Zane`.split(/\s+/);

// Distinct capitalised opening words: slot prompts of one context start with different words, so they
// share no first token (docs/method.md "Prompts").
export const OPENERS =
  `Amber Anchor Apple Arrow Autumn Badge Banner Barley Beacon Birch Blossom Bramble Breeze
Bronze Cabin Canyon Cedar Chapel Cherry Cliff Clover Cobalt Comet Copper Coral Cotton Crystal Dawn Delta
Desert Dune Eagle Ember Falcon Feather Fern Fjord Flint Forge Frost Garnet Glacier Granite Harbor Hazel
Heron Hollow Indigo Iris Ivory Jade Jasmine Juniper Kettle Lagoon Lantern Laurel Lemon Lily Linen Lotus
Maple Marble Meadow Mint Moss Nectar Nutmeg Oak Ocean Olive Onyx Orchid Otter Pebble Pepper Pine Plum
Poplar Prairie Quartz Quill Raven Reed Ridge Robin Saffron Sage Salmon Sand Scarlet Shadow Silver Slate
Sparrow Spruce Summit Swan Thistle Thunder Timber Topaz Tulip Valley Velvet Violet Walnut Willow Winter
Wren Zephyr Acorn Basil Canvas Dahlia Echo Fable Galaxy Harvest Island Jasper Karma Lark Mosaic Nova
Opal Parsley Quiver Rowan Sequoia Tundra Umber Vesper Wharf Yarrow Zinnia`.split(/\s+/);
