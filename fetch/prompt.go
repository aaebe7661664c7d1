package fetch

import "context"

// Question is something a driver must ask the user: a password the server
// wants, a search query, a field of a Gopher+ form.
type Question struct {
	URL     string   // the URL being fetched, password masked
	Field   string   // machine name: "password", "query", a form field
	Label   string   // what to show the user
	Secret  bool     // do not echo the answer
	Default string   // the answer when the user gives none
	Choices []string // when not empty, the answer is one of these
	Multi   bool     // several lines may be answered (Gopher+ AskL)
}

// Prompter answers questions on behalf of the user. The command asks the
// terminal; a bot supplies canned answers or none.
type Prompter interface {
	Prompt(ctx context.Context, q Question) (string, error)
}

// Answers is a Prompter with canned answers keyed by Question.Field; a
// question it has no answer for fails with ErrNoAnswer.
type Answers map[string]string

// Prompt returns the canned answer for q.Field.
func (a Answers) Prompt(_ context.Context, q Question) (string, error) {
	if v, ok := a[q.Field]; ok {
		return v, nil
	}
	return "", &Error{Kind: KindUsage, Op: "prompt", URL: q.URL, Part: q.Field, Offset: -1, Err: ErrNoAnswer}
}
