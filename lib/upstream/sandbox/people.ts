import type { SandboxCountry } from "./banks";
import type { SeededRandom } from "./seeded-random";

/**
 * Invented people and companies per sandbox country: account owners and
 * counterparties. Common local names, so that the demo reads like real data
 * without being anyone's.
 */

interface CountryPeople {
  first: readonly string[];
  last: readonly string[];
  /** "Anna and Mikkel" in the local language, for joint accounts. */
  and: string;
  companyStems: readonly string[];
  companySuffix: string;
}

export const PEOPLE = {
  DK: {
    first: ["Mette", "Anne", "Sofie", "Mikkel", "Rasmus", "Jonas", "Freja", "Lars", "Ida", "Emil"],
    last: [
      "Nielsen",
      "Jensen",
      "Hansen",
      "Pedersen",
      "Andersen",
      "Christensen",
      "Larsen",
      "Sørensen",
    ],
    and: "og",
    companyStems: ["Tatic", "Havnegade Design", "Nordlys Consult", "Fyrtårn Bygg", "Kystlinje"],
    companySuffix: "ApS",
  },
  SE: {
    first: ["Anna", "Elin", "Maja", "Erik", "Lars", "Oskar", "Karin", "Johan", "Sara", "Nils"],
    last: ["Andersson", "Johansson", "Karlsson", "Nilsson", "Eriksson", "Larsson", "Olsson"],
    and: "och",
    companyStems: ["Skärgård Konsult", "Norrsken Data", "Granit Bygg", "Lindgren Design"],
    companySuffix: "AB",
  },
  NO: {
    first: ["Ingrid", "Kari", "Nora", "Ola", "Henrik", "Magnus", "Silje", "Jon", "Hanne", "Sindre"],
    last: ["Hansen", "Johansen", "Olsen", "Larsen", "Andersen", "Pedersen", "Nilsen", "Berg"],
    and: "og",
    companyStems: ["Fjellsol Konsulent", "Havbris Bygg", "Nordkapp Data", "Bryggen Design"],
    companySuffix: "AS",
  },
  FI: {
    first: ["Aino", "Helmi", "Sanna", "Mikko", "Juha", "Antti", "Laura", "Ville", "Emma", "Eero"],
    last: ["Korhonen", "Virtanen", "Mäkinen", "Nieminen", "Mäkelä", "Hämäläinen", "Laine"],
    and: "ja",
    companyStems: ["Revontuli Konsultointi", "Saimaa Rakennus", "Kuusi Data", "Aalto Design"],
    companySuffix: "Oy",
  },
  DE: {
    first: ["Anna", "Lena", "Julia", "Lukas", "Jonas", "Felix", "Sabine", "Thomas", "Laura", "Jan"],
    last: ["Müller", "Schmidt", "Schneider", "Fischer", "Weber", "Meyer", "Wagner", "Becker"],
    and: "und",
    companyStems: ["Rheinblick Beratung", "Hafenkante Bau", "Elbdaten", "Werkstatt Nord"],
    companySuffix: "GmbH",
  },
  NL: {
    first: ["Sanne", "Emma", "Lotte", "Daan", "Bram", "Thijs", "Fleur", "Joost", "Eva", "Ruben"],
    last: ["de Jong", "Jansen", "de Vries", "van den Berg", "Bakker", "Visser", "Smit", "Meijer"],
    and: "en",
    companyStems: ["Grachtzicht Advies", "Polderwerk Bouw", "Duinlicht Data", "Molenaar Design"],
    companySuffix: "B.V.",
  },
} as const satisfies Record<SandboxCountry, CountryPeople>;

export function personName(random: SeededRandom, country: SandboxCountry): string {
  const people = PEOPLE[country];
  return `${random.pick(people.first)} ${random.pick(people.last)}`;
}

/** "Mette og Mikkel Nielsen": two first names, one family name. */
export function couplesName(random: SeededRandom, country: SandboxCountry): string {
  const people = PEOPLE[country];
  const first = random.pick(people.first);
  const others = people.first.filter((name) => name !== first);
  return `${first} ${people.and} ${random.pick(others)} ${random.pick(people.last)}`;
}

export function companyName(random: SeededRandom, country: SandboxCountry): string {
  const people = PEOPLE[country];
  return `${random.pick(people.companyStems)} ${people.companySuffix}`;
}
