"""What requests cost: one normalized `Usage` (`usage`), the price table (`prices`, read from
files by `pricefile`), the one rule for dollar amounts a user gives (`money`) and the session's
`Ledger` (`ledger`). Pure but for `pricefile`, which reads price files."""
