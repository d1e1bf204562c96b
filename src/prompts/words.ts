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

// Short common words for the workloads' prompts (docs/workloads.md "Prompts"): each is one token after a space
// in the usual tokenizers (and in the sim's, at 4 characters or fewer), so a text of N of them is N tokens. The
// prompt bank keeps only those the server's own tokenizer counts as one (bank-prepare.ts).
export const SHORT_WORDS =
  `the and for are but not all any can had her was one our out day get has him his how
man new now old see two way who boy did its let put say she too use far off few got lot men own run set sun top
yes yet arm art bad bag bed big box car cat cup cut dog ear eat egg end eye fat fly fun gas hat hot ice job key
kid law leg lie low map mix net oil pay pen pet pig raw red row sad sea sit six sky son tax tea ten tie toy try
van wet win air age ago aid aim ask bit buy cow cry dry due fit fix gap hit ink joy lab lap mud nor nut odd pan
pin pot rid tip via wax web zoo able also area away baby back ball bank base bear beat best bill bird blue boat
body bone book born both busy call calm came camp card care case cash city club coal coat cold come cook cool
copy cost dark date deal dear deep door down draw drop duty each east easy edge else even ever face fact fair
fall farm fast feel feet fell felt file fill film find fine fire firm fish five flat flow food foot form four
free from full fund gain game gave gift girl give glad goal gold gone good gray grew grow hair half hall hand
hard have head hear heat held help here high hill hold home hope hour huge idea into iron item join jump just
keep kept kind king knew know lack lady lake land last late lead left less life lift like line list live load
lock long look lose lost love made mail main make many mark mass meal mean meet mind mine miss moon more most
move much must name near neck need news next nice nine none nose note once only open over page paid pair park
part pass past path pick plan play plus pool poor port post pull pure push race rain rate read real rest rich
ride ring rise road rock roof room root rule safe said sale salt same sand save seat seed seek seem seen sell
send ship shop shot show side sign sing site size skin slow snow soft soil sold some song soon sort spot star
stay step stop such suit sure take talk tall team tell term test text than that them then they thin this thus
time tiny told tone took tool tour town tree trip true turn type unit upon used vast very view vote wait walk
wall want warm wash wave weak wear week well went were west what when wide wife wild will wind wine wing wire
wise wish with wood word wore work yard year your zero`.split(/\s+/);
