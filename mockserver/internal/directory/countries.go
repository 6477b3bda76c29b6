package directory

import "regexp"

// Interface A's address.countryCode is an ISO 3166-1 alpha-3 code ("SWE");
// interface B's addresses[].country is free text, by Swedish custom the
// country's Swedish name ("Sverige"). countryNames pairs the names our
// data and Swedish population records use most with their codes; the
// mapping works both ways (docs/decisions.md#country-code).
var countryNames = map[string]string{
	"Sverige": "SWE", "Norge": "NOR", "Danmark": "DNK", "Finland": "FIN", "Island": "ISL",
	"Estland": "EST", "Lettland": "LVA", "Litauen": "LTU", "Polen": "POL", "Tyskland": "DEU",
	"Nederländerna": "NLD", "Belgien": "BEL", "Frankrike": "FRA", "Spanien": "ESP", "Portugal": "PRT",
	"Italien": "ITA", "Grekland": "GRC", "Österrike": "AUT", "Schweiz": "CHE", "Storbritannien": "GBR",
	"Irland": "IRL", "Ukraina": "UKR", "Ryssland": "RUS", "Rumänien": "ROU", "Ungern": "HUN",
	"Turkiet": "TUR", "Syrien": "SYR", "Irak": "IRQ", "Iran": "IRN", "Afghanistan": "AFG",
	"Somalia": "SOM", "Eritrea": "ERI", "Etiopien": "ETH", "Indien": "IND", "Kina": "CHN",
	"Thailand": "THA", "USA": "USA", "Kanada": "CAN", "Brasilien": "BRA", "Chile": "CHL",
}

// countryOfCode is countryNames the other way round.
var countryOfCode = func() map[string]string {
	m := make(map[string]string, len(countryNames))
	for name, code := range countryNames {
		m[code] = name
	}
	return m
}()

// alpha3 is the form of an ISO 3166-1 alpha-3 code.
var alpha3 = regexp.MustCompile(`^[A-Z]{3}$`)

// countryCodeOf is the countryCode interface A shows for an SS 12000
// country: the code of a name in countryNames, a code as it is, and nil for
// anything else (a name no table here knows cannot be shown as a code).
func countryCodeOf(country string) *string {
	if code, ok := countryNames[country]; ok {
		return &code
	}
	if alpha3.MatchString(country) {
		return &country
	}
	return nil
}

// countryOf is the SS 12000 country stored for interface A's countryCode:
// the Swedish name of a code in countryNames, else the code itself.
func countryOf(code string) string {
	if name, ok := countryOfCode[code]; ok {
		return name
	}
	return code
}
