import type { SandboxCountry } from "./banks";

/**
 * Who the sandbox's money goes to and comes from, per country: local grocery
 * chains, employers, landlords, payment apps and the words banks print in
 * remittance lines. Merchant category codes are ISO 18245.
 */

/** ISO 18245 merchant category codes used by the generator. */
export const MCC = {
  groceries: "5411",
  restaurants: "5812",
  fastFood: "5814",
  transit: "4111",
  fuel: "5541",
  electronics: "5732",
  clothing: "5691",
  books: "5942",
  streaming: "4899",
  digitalMedia: "5815",
  telecom: "4814",
  hosting: "4816",
  software: "5734",
  gym: "7997",
  insurance: "6300",
  utilities: "4900",
  officeSupplies: "5111",
  airlines: "4511",
  hotels: "7011",
} as const satisfies Record<string, string>;

export interface Subscription {
  name: string;
  mcc: string;
  /** Day of the month it is charged. */
  day: number;
  /** Price in euro cents, converted to the local currency. */
  euroCents: number;
}

interface CountryMerchants {
  groceries: readonly string[];
  restaurants: readonly string[];
  transit: string;
  fuel: readonly string[];
  cities: readonly string[];
  paymentApp: string;
  employers: readonly string[];
  landlords: readonly string[];
  utilities: { power: string; telecom: string; insurance: string; accounting: string; tax: string };
  words: {
    salary: string;
    rent: string;
    toSavings: string;
    fromSavings: string;
    standingOrder: string;
    interest: string;
    invoice: string;
    payroll: string;
    vat: string;
  };
}

export const MERCHANTS = {
  DK: {
    groceries: ["Netto", "Føtex", "Rema 1000", "Coop 365", "Lidl", "Irma"],
    restaurants: ["Café Norden", "Sticks'n'Sushi", "Gasoline Grill", "Joe & The Juice"],
    transit: "DSB",
    fuel: ["Circle K", "OK Plus", "Q8"],
    cities: ["København", "Aarhus", "Odense", "Aalborg"],
    paymentApp: "MobilePay",
    employers: ["Nordisk Logistik A/S", "Danske Energi A/S", "Region Sjælland"],
    landlords: ["Boligselskabet Havnen", "Ejendomsselskabet Nørrebro ApS"],
    utilities: {
      power: "Andel Energi",
      telecom: "Telenor DK",
      insurance: "Tryg Forsikring",
      accounting: "e-conomic",
      tax: "Skattestyrelsen",
    },
    words: {
      salary: "Løn",
      rent: "Husleje",
      toSavings: "Overførsel til opsparing",
      fromSavings: "Overførsel fra opsparing",
      standingOrder: "Fast overførsel",
      interest: "Rente",
      invoice: "Faktura",
      payroll: "Lønudbetaling",
      vat: "Moms",
    },
  },
  SE: {
    groceries: ["ICA Maxi", "Coop", "Willys", "Hemköp", "Lidl"],
    restaurants: ["Max Hamburgare", "Espresso House", "Vapiano", "Pizzeria Roma"],
    transit: "SL",
    fuel: ["Circle K", "Preem", "OKQ8"],
    cities: ["Stockholm", "Göteborg", "Malmö", "Uppsala"],
    paymentApp: "Swish",
    employers: ["Nordisk Logistik AB", "Västra Energi AB", "Region Stockholm"],
    landlords: ["Stockholmshem", "Bostadsbolaget Norr AB"],
    utilities: {
      power: "Vattenfall",
      telecom: "Telia",
      insurance: "Folksam",
      accounting: "Fortnox",
      tax: "Skatteverket",
    },
    words: {
      salary: "Lön",
      rent: "Hyra",
      toSavings: "Överföring till sparkonto",
      fromSavings: "Överföring från sparkonto",
      standingOrder: "Stående överföring",
      interest: "Ränta",
      invoice: "Faktura",
      payroll: "Löneutbetalning",
      vat: "Moms",
    },
  },
  NO: {
    groceries: ["Rema 1000", "Kiwi", "Meny", "Coop Extra", "Joker"],
    restaurants: ["Peppes Pizza", "Espresso House", "Burger King", "Egon"],
    transit: "Ruter",
    fuel: ["Circle K", "Uno-X", "Esso"],
    cities: ["Oslo", "Bergen", "Trondheim", "Stavanger"],
    paymentApp: "Vipps",
    employers: ["Nordisk Logistikk AS", "Vestland Energi AS", "Oslo kommune"],
    landlords: ["Boligbygg Oslo KF", "Utleiegården AS"],
    utilities: {
      power: "Fjordkraft",
      telecom: "Telenor",
      insurance: "Gjensidige",
      accounting: "Tripletex",
      tax: "Skatteetaten",
    },
    words: {
      salary: "Lønn",
      rent: "Husleie",
      toSavings: "Overføring til sparekonto",
      fromSavings: "Overføring fra sparekonto",
      standingOrder: "Fast overføring",
      interest: "Renter",
      invoice: "Faktura",
      payroll: "Lønnsutbetaling",
      vat: "Merverdiavgift",
    },
  },
  FI: {
    groceries: ["K-Market", "S-Market", "Prisma", "Lidl", "Alepa"],
    restaurants: ["Hesburger", "Fazer Café", "Kotipizza", "Ravintola Savu"],
    transit: "HSL",
    fuel: ["Neste", "ABC", "St1"],
    cities: ["Helsinki", "Espoo", "Tampere", "Turku"],
    paymentApp: "MobilePay",
    employers: ["Pohjolan Logistiikka Oy", "Etelä Energia Oy", "Helsingin kaupunki"],
    landlords: ["Asuntosäätiö Koti", "Vuokratalot Helsinki Oy"],
    utilities: {
      power: "Helen",
      telecom: "Elisa",
      insurance: "LähiTapiola",
      accounting: "Procountor",
      tax: "Verohallinto",
    },
    words: {
      salary: "Palkka",
      rent: "Vuokra",
      toSavings: "Siirto säästötilille",
      fromSavings: "Siirto säästötililtä",
      standingOrder: "Toistuva siirto",
      interest: "Korko",
      invoice: "Lasku",
      payroll: "Palkanmaksu",
      vat: "Arvonlisävero",
    },
  },
  DE: {
    groceries: ["REWE", "EDEKA", "Aldi Süd", "Lidl", "dm-drogerie markt"],
    restaurants: ["Vapiano", "Backwerk", "L'Osteria", "Hans im Glück"],
    transit: "BVG",
    fuel: ["Aral", "Shell", "JET"],
    cities: ["Berlin", "Hamburg", "München", "Köln"],
    paymentApp: "PayPal",
    employers: ["Nordlogistik GmbH", "Stadtwerke Rheinland", "Land Berlin"],
    landlords: ["Wohnbau Mitte GmbH", "Hausverwaltung Schneider"],
    utilities: {
      power: "Vattenfall Europe",
      telecom: "Telekom Deutschland",
      insurance: "HUK-Coburg",
      accounting: "DATEV",
      tax: "Finanzamt",
    },
    words: {
      salary: "Gehalt",
      rent: "Miete",
      toSavings: "Übertrag auf Tagesgeld",
      fromSavings: "Übertrag von Tagesgeld",
      standingOrder: "Dauerauftrag",
      interest: "Zinsen",
      invoice: "Rechnung",
      payroll: "Gehaltszahlung",
      vat: "Umsatzsteuer",
    },
  },
  NL: {
    groceries: ["Albert Heijn", "Jumbo", "Lidl", "Plus", "Dirk"],
    restaurants: ["FEBO", "Bagels & Beans", "De Pizzabakkers", "Vapiano"],
    transit: "NS",
    fuel: ["Shell", "BP", "Tango"],
    cities: ["Amsterdam", "Rotterdam", "Utrecht", "Den Haag"],
    paymentApp: "Tikkie",
    employers: ["Nederlogistiek B.V.", "Energie Noord B.V.", "Gemeente Utrecht"],
    landlords: ["Woonstichting De Key", "Vastgoed Centrum B.V."],
    utilities: {
      power: "Eneco",
      telecom: "KPN",
      insurance: "Centraal Beheer",
      accounting: "Exact Online",
      tax: "Belastingdienst",
    },
    words: {
      salary: "Salaris",
      rent: "Huur",
      toSavings: "Overboeking naar spaarrekening",
      fromSavings: "Overboeking van spaarrekening",
      standingOrder: "Periodieke overboeking",
      interest: "Rente",
      invoice: "Factuur",
      payroll: "Salarisbetaling",
      vat: "Btw",
    },
  },
} as const satisfies Record<SandboxCountry, CountryMerchants>;

/** Personal subscriptions, the same everywhere (prices converted to the local currency). */
export const PERSONAL_SUBSCRIPTIONS = [
  { name: "Netflix", mcc: MCC.streaming, day: 3, euroCents: 1299 },
  { name: "Spotify", mcc: MCC.digitalMedia, day: 9, euroCents: 1099 },
  { name: "One.com", mcc: MCC.hosting, day: 14, euroCents: 399 },
  { name: "SATS Fitness", mcc: MCC.gym, day: 1, euroCents: 3900 },
] as const satisfies readonly Subscription[];

/** Business software subscriptions. */
export const BUSINESS_SUBSCRIPTIONS = [
  { name: "One.com", mcc: MCC.hosting, day: 14, euroCents: 2604 },
  { name: "Microsoft 365", mcc: MCC.software, day: 5, euroCents: 5040 },
  { name: "Google Workspace", mcc: MCC.software, day: 11, euroCents: 2760 },
] as const satisfies readonly Subscription[];
