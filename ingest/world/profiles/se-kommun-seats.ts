/**
 * WGS84 coordinates of the seat town of Swedish kommuner, keyed by SCB's short kommun name, rounded to two
 * decimals. Taken from the locality list sphrak/svenska-stader src/svenska-stader.csv (Apache-2.0; rows
 * whose locality is the kommun's seat town, e.g. "Falun" for Falu kommun). That file's county column and
 * some of its rows are unreliable, so only seat rows were used and rows placing a seat far from its
 * kommun (Nora, Danderyd) were left out. Kommuner missing here fall back to the mean of their län's seats.
 * Workplace coordinates are jittered around these points and projected to SWEREF99 TM.
 */
const SEATS = `
Alingsås:57.98,12.46;Alvesta:56.86,14.45;Aneby:57.87,14.75;Arboga:59.39,15.84;Arjeplog:66.38,17.11;
Arvidsjaur:65.66,19.35;Arvika:59.65,12.59;Askersund:58.84,14.93;Avesta:60.15,16.18;Bengtsfors:59.01,12.25;
Bjurholm:63.96,18.98;Bjuv:56.08,12.92;Boden:65.83,21.70;Bollebygd:57.74,12.58;Bollnäs:61.32,16.40;
Borgholm:56.88,16.66;Borlänge:60.49,15.42;Borås:57.72,12.94;Boxholm:58.13,15.13;Bromölla:56.08,14.47;
Bräcke:62.75,15.42;Båstad:56.43,12.86;Dorotea:64.46,16.11;Degerfors:59.15,14.43;Eksjö:57.67,14.97;
Ekerö:59.36,17.62;Emmaboda:56.63,15.54;Enköping:59.64,17.08;Eskilstuna:59.37,16.51;Eslöv:55.84,13.30;
Fagersta:60.00,15.79;Falkenberg:57.01,12.71;Falköping:58.16,13.49;Falun:60.61,15.63;Filipstad:59.71,14.17;
Finspång:58.71,15.78;Flen:59.06,16.59;Forshaga:59.53,13.48;Färgelanda:58.61,12.01;Gagnef:60.46,14.87;
Gislaved:57.29,13.49;Gnesta:59.05,17.31;Gnosjö:57.36,13.79;Grums:59.40,13.03;Grästorp:58.33,12.63;
Gullspång:58.93,14.13;Gällivare:67.14,20.66;Gävle:60.68,17.15;Göteborg:57.71,11.97;Götene:58.53,13.49;
Habo:57.98,14.07;Hagfors:60.09,13.65;Hallsberg:58.99,15.33;Hallstahammar:59.61,16.23;Halmstad:56.67,12.86;
Haparanda:65.84,24.14;Heby:60.07,17.01;Hedemora:60.28,15.99;Helsingborg:56.04,12.70;Herrljunga:58.01,13.16;
Hjo:58.27,14.28;Hofors:60.49,16.45;Hudiksvall:61.73,17.10;Hultsfred:57.39,15.78;Hällefors:59.78,14.52;
Härnösand:62.63,17.94;Härryda:57.67,12.30;Hässleholm:56.16,13.77;Höganäs:56.20,12.55;Högsby:57.11,15.88;
Hörby:55.85,13.66;Höör:55.93,13.55;Jokkmokk:66.61,19.84;Jönköping:57.78,14.16;Kalix:65.77,23.13;
Kalmar:56.66,16.37;Karlsborg:58.59,14.54;Karlshamn:56.17,14.86;Karlskoga:59.39,14.55;Karlskrona:56.16,15.59;
Karlstad:59.38,13.50;Katrineholm:59.02,16.32;Kil:59.57,13.19;Kiruna:67.86,20.23;Klippan:56.12,13.23;
Knivsta:59.74,17.82;Kramfors:62.93,17.78;Kristianstad:56.03,14.16;Kristinehamn:59.31,14.11;Kumla:59.12,15.11;
Kungsör:59.41,16.09;Kungälv:57.87,11.98;Kävlinge:55.79,13.11;Köping:59.58,15.88;Laholm:56.51,13.04;
Landskrona:55.87,12.83;Laxå:58.98,14.62;Leksand:60.72,14.87;Lerum:57.77,12.27;Lessebo:56.76,15.27;
Lidingö:59.36,18.13;Lidköping:58.57,13.01;Lilla Edet:58.16,12.08;Lindesberg:59.59,15.23;Linköping:58.41,15.62;
Ljungby:56.83,13.94;Ljusdal:61.83,16.10;Lomma:55.67,13.07;Ludvika:60.15,15.18;Luleå:65.58,22.15;
Lund:55.70,13.19;Lycksele:64.60,18.68;Lysekil:58.29,11.33;Malmö:55.61,13.00;Malå:65.24,18.73;
Mariestad:58.80,13.75;Markaryd:56.46,13.59;Mellerud:58.68,12.53;Mjölby:58.30,15.18;Mora:61.01,14.54;
Motala:58.54,15.04;Mullsjö:57.94,13.82;Munkedal:58.61,11.67;Munkfors:59.81,13.49;Mönsterås:57.04,16.44;
Mörbylånga:56.52,16.38;Norberg:60.06,15.95;Nordmaling:63.48,19.55;Norrköping:58.59,16.19;
Norrtälje:59.76,18.70;Norsjö:64.94,19.48;Nybro:56.75,15.91;Nykvarn:59.20,17.40;Nyköping:58.75,17.01;
Nynäshamn:58.91,17.95;Nässjö:57.65,14.70;Ockelbo:60.92,16.54;Olofström:56.28,14.53;Orsa:61.12,14.62;
Osby:56.38,13.99;Oskarshamn:57.26,16.44;Oxelösund:58.67,17.10;Pajala:67.21,23.36;Perstorp:56.14,13.40;
Piteå:65.31,21.49;Robertsfors:64.19,20.85;Ronneby:56.21,15.28;Rättvik:60.88,15.12;Sala:59.92,16.61;
Sandviken:60.62,16.78;Sigtuna:59.62,17.72;Simrishamn:55.56,14.35;Sjöbo:55.64,13.70;Skara:58.38,13.44;
Skellefteå:64.74,20.97;Skövde:58.39,13.84;Skurup:55.48,13.50;Smedjebacken:60.14,15.42;Sollefteå:63.17,17.27;
Sorsele:65.53,17.54;Staffanstorp:55.64,13.21;Stenungsund:58.06,11.91;Stockholm:59.33,18.07;
Storfors:59.46,14.28;Storuman:65.44,15.83;Strängnäs:59.35,17.08;Strömstad:58.94,11.18;Strömsund:63.85,15.56;
Sundsvall:62.39,17.31;Sunne:59.89,13.05;Surahammar:59.71,16.22;Svalöv:55.91,13.11;Svedala:55.52,13.24;
Svenljunga:57.50,13.11;Säffle:59.07,13.16;Säter:60.41,15.74;Sävsjö:57.32,14.61;Söderhamn:61.30,17.06;
Söderköping:58.48,16.32;Södertälje:59.20,17.63;Sölvesborg:56.05,14.59;Tibro:58.42,14.16;Tidaholm:58.14,13.92;
Tierp:60.34,17.52;Timrå:62.49,17.33;Tingsryd:56.53,14.98;Tomelilla:55.54,13.95;Torsby:60.14,13.01;
Torsås:56.41,16.00;Tranemo:57.49,13.43;Tranås:58.04,14.83;Trelleborg:55.38,13.15;Trollhättan:58.22,12.34;
Trosa:58.90,17.55;Töreboda:58.71,14.12;Uddevalla:58.35,11.94;Ulricehamn:57.81,13.44;Umeå:63.83,20.26;
Uppsala:59.86,17.64;Vadstena:58.43,14.78;Vaggeryd:57.50,14.15;Valdemarsvik:58.20,16.60;
Vallentuna:59.53,18.08;Vansbro:60.46,14.26;Vara:58.25,13.10;Varberg:57.11,12.25;Vaxholm:59.40,18.29;
Vellinge:55.47,13.02;Vetlanda:57.43,15.09;Vilhelmina:64.63,16.65;Vimmerby:57.68,15.79;Vindeln:64.20,19.72;
Vingåker:59.04,15.87;Vänersborg:58.44,12.36;Vännäs:63.94,19.70;Värnamo:57.19,14.04;Västervik:57.76,16.64;
Västerås:59.61,16.55;Växjö:56.88,14.81;Vårgårda:58.03,12.81;Ystad:55.43,13.82;Åmål:58.97,12.62;
Ånge:62.47,15.64;Åre:63.40,13.08;Årjäng:59.44,12.11;Åsele:64.20,17.61;Åstorp:56.14,12.95;
Åtvidaberg:58.22,16.14;Älmhult:56.55,14.14;Älvdalen:61.23,14.04;Älvkarleby:60.69,17.70;Älvsbyn:65.74,20.68;
Ängelholm:56.24,12.86;Ödeshög:58.22,14.66;Örebro:59.27,15.21;Örkelljunga:56.28,13.28;
Örnsköldsvik:63.29,18.72;Östersund:63.18,14.64;Östhammar:60.26,18.37;Överkalix:66.49,22.60;
Övertorneå:66.39,23.66;Gotland:57.64,18.30;Upplands-Bro:59.48,17.75;Österåker:59.48,18.29;
Värmdö:59.33,18.39;Haninge:59.12,18.11;Botkyrka:59.20,17.83;Håbo:59.57,17.53;Ale:57.91,12.06;
Partille:57.75,12.17;Tjörn:57.99,11.55;Orust:58.24,11.68;Tanum:58.72,11.33;Sotenäs:58.36,11.25;
Mark:57.51,12.69;Kungsbacka:57.43,12.03;Hylte:57.00,13.24;Hammarö:59.32,13.47;Eda:59.88,12.30;
Upplands Väsby:59.54,17.92;Nacka:59.29,18.25;Mölndal:57.60,12.19;Burlöv:55.64,13.10;
Malung-Sälen:60.69,13.71;Ovanåker:61.38,15.82;Nordanstig:61.98,17.06;Ragunda:63.11,16.36;
Berg:62.77,14.43;Härjedalen:62.04,14.36;Östra Göinge:56.19,14.09;Uppvidinge:57.17,15.35;
Essunga:58.19,12.72;Kinda:57.99,15.63;Ydre:57.82,15.28;Lekeberg:59.17,14.87;Ljusnarsberg:59.87,14.99;
Skinnskatteberg:59.79,15.75;Dals-Ed:58.91,11.93
`;

export const SE_KOMMUN_SEATS: ReadonlyMap<string, { lat: number; lon: number }> = new Map(
  SEATS.split(';')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      const [name = '', coords = ''] = entry.split(':');
      const [lat = '0', lon = '0'] = coords.split(',');
      return [name, { lat: Number(lat), lon: Number(lon) }] as const;
    }),
);
