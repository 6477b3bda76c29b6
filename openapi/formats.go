package openapi

import (
	"fmt"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"
)

// SchemaOptions are the schema-validation options every user of the contract
// applies, so that the mock and the conformance runner judge a value alike:
// all violations reported, and the formats uuid, date and date-time checked
// strictly (RFC 4122 text form, RFC 3339 full-date and date-time).
func SchemaOptions() []openapi3.SchemaValidationOption {
	return []openapi3.SchemaValidationOption{
		openapi3.MultiErrors(),
		openapi3.EnableFormatValidation(),
		openapi3.WithStringFormatValidators(map[string]openapi3.StringFormatValidator{
			"uuid":      openapi3.NewCallbackValidator(validUUID),
			"date":      openapi3.NewCallbackValidator(validDate),
			"date-time": openapi3.NewCallbackValidator(validDateTime),
		}),
	}
}

// StringFormat returns the check SchemaOptions registers for a string
// format (uuid, date, date-time), for code that must judge a value exactly
// as the contract's validation does.
func StringFormat(name string) (check func(string) error, ok bool) {
	switch name {
	case "uuid":
		return validUUID, true
	case "date":
		return validDate, true
	case "date-time":
		return validDateTime, true
	}
	return nil, false
}

// validUUID accepts the 36-character hyphenated form only (uuid.Parse alone
// also takes urn: and braced forms).
func validUUID(s string) error {
	if len(s) != 36 {
		return fmt.Errorf("not a UUID in the form xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx")
	}
	if _, err := uuid.Parse(s); err != nil {
		return fmt.Errorf("not a UUID: %v", err)
	}
	return nil
}

func validDate(s string) error {
	t, err := time.Parse("2006-01-02", s)
	if err != nil || t.Format("2006-01-02") != s {
		return fmt.Errorf("not an RFC 3339 full-date (YYYY-MM-DD)")
	}
	return nil
}

func validDateTime(s string) error {
	if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
		return fmt.Errorf("not an RFC 3339 date-time")
	}
	return nil
}
